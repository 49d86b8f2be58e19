"""documents.mtime_ns: a nightly run hashes only the files whose size or mtime changed (issue 43 item 4)

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""
from alembic import op
import sqlalchemy as sa


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('documents', sa.Column('mtime_ns', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column('documents', 'mtime_ns')
