"""what reading a document took (a PDF repaired, text decoded as UTF-16), for its report

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('documents', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notes', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('documents', schema=None) as batch_op:
        batch_op.drop_column('notes')
