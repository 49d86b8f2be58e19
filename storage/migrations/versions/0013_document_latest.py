"""documents (path, id) and (fingerprint, id): a contract's latest document is read from the top of
its index entries, not from every night it was audited (the nightly planner, issue 43 item 4)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""
from alembic import op


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_documents_path_id', 'documents', ['path', 'id'])
    op.drop_index('ix_documents_path', table_name='documents')
    op.create_index('ix_documents_fingerprint_id', 'documents', ['fingerprint', 'id'])
    op.drop_index('ix_documents_fingerprint', table_name='documents')


def downgrade() -> None:
    op.create_index('ix_documents_path', 'documents', ['path'])
    op.drop_index('ix_documents_path_id', table_name='documents')
    op.create_index('ix_documents_fingerprint', 'documents', ['fingerprint'])
    op.drop_index('ix_documents_fingerprint_id', table_name='documents')
