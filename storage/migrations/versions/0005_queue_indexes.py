"""review queue at scale: a severity column and indexes for each filter of the queue

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('review_items', schema=None) as batch_op:
        batch_op.add_column(sa.Column('severity', sa.String(length=16), nullable=True))
        batch_op.create_index('ix_review_items_status_category_priority', ['status', 'category', 'priority'])
        batch_op.create_index('ix_review_items_status_severity_priority', ['status', 'severity', 'priority'])
        batch_op.create_index('ix_review_items_status_assignee_priority', ['status', 'assignee', 'priority'])
    op.create_index('ix_documents_filename', 'documents', ['filename'])


def downgrade() -> None:
    op.drop_index('ix_documents_filename', table_name='documents')
    with op.batch_alter_table('review_items', schema=None) as batch_op:
        batch_op.drop_index('ix_review_items_status_assignee_priority')
        batch_op.drop_index('ix_review_items_status_severity_priority')
        batch_op.drop_index('ix_review_items_status_category_priority')
        batch_op.drop_column('severity')
