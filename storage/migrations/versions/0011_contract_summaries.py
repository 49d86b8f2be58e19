"""contract summaries: the portfolio's rows and dated events, read a page at a time (issue 42 item 6)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-20
"""
from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_documents_path', 'documents', ['path'], unique=False)
    op.create_index('ix_documents_updated_at', 'documents', ['updated_at'], unique=False)
    op.create_index('ix_documents_carried_from', 'documents', ['carried_from'], unique=False)
    op.create_table(
        'contract_summaries',
        sa.Column('path', sa.Text(), nullable=False),
        sa.Column('document_id', sa.Integer(), nullable=False),
        sa.Column('source', sa.String(length=80), nullable=False),
        sa.Column('filename', sa.Text(), nullable=False),
        sa.Column('level', sa.String(length=16), nullable=False),
        sa.Column('level_order', sa.Integer(), nullable=False),
        sa.Column('score_order', sa.Float(), nullable=False),
        sa.Column('risk_score', sa.Float(), nullable=True),
        sa.Column('counterparty', sa.Text(), nullable=False),
        sa.Column('contract_type', sa.Text(), nullable=False),
        sa.Column('our_role', sa.Text(), nullable=False),
        sa.Column('top_issues', sa.JSON(), nullable=False),
        sa.Column('asks', sa.JSON(), nullable=False),
        sa.Column('clauses', sa.Text(), nullable=False),
        sa.Column('words', sa.Text(), nullable=False),
        sa.Column('terms', sa.JSON(), nullable=False),
        sa.Column('term', sa.Text(), nullable=False),
        sa.Column('deadline_on', sa.Date(), nullable=True),
        sa.Column('deadline_kind', sa.String(length=16), nullable=True),
        sa.Column('search', sa.Text(), nullable=False),
        sa.Column('fresh_until', sa.Date(), nullable=False),
        sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('path'),
        sa.UniqueConstraint('document_id'),
    )
    op.create_index('ix_contract_summaries_triage', 'contract_summaries',
                    ['level_order', 'score_order', 'filename', 'document_id'], unique=False)
    if op.get_bind().dialect.name == 'postgresql':  # a search's LIKE '%word%' through trigrams
        op.execute('CREATE EXTENSION IF NOT EXISTS pg_trgm')
        op.create_index('ix_contract_summaries_search', 'contract_summaries', ['search'], unique=False,
                        postgresql_using='gin', postgresql_ops={'search': 'gin_trgm_ops'})
    else:
        op.create_index('ix_contract_summaries_search', 'contract_summaries', ['search'], unique=False)
    op.create_index('ix_contract_summaries_deadline_on', 'contract_summaries', ['deadline_on'], unique=False)
    op.create_index('ix_contract_summaries_fresh_until', 'contract_summaries', ['fresh_until'], unique=False)
    op.create_table(
        'contract_events',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('path', sa.Text(), nullable=False),
        sa.Column('document_id', sa.Integer(), nullable=False),
        sa.Column('due', sa.Date(), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('contract', sa.Text(), nullable=False),
        sa.Column('filename', sa.Text(), nullable=False),
        sa.Column('explanation', sa.Text(), nullable=False),
        sa.Column('uid', sa.String(length=64), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['path'], ['contract_summaries.path'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_contract_events_due', 'contract_events', ['due', 'contract', 'path', 'id'], unique=False)
    op.create_index('ix_contract_events_path', 'contract_events', ['path'], unique=False)
    marks = op.create_table(
        'portfolio_marks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('refreshed_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.bulk_insert(marks, [{'id': 1, 'refreshed_at': None}])


def downgrade() -> None:
    op.drop_table('portfolio_marks')
    op.drop_index('ix_contract_events_path', table_name='contract_events')
    op.drop_index('ix_contract_events_due', table_name='contract_events')
    op.drop_table('contract_events')
    op.drop_index('ix_contract_summaries_fresh_until', table_name='contract_summaries')
    op.drop_index('ix_contract_summaries_deadline_on', table_name='contract_summaries')
    op.drop_index('ix_contract_summaries_search', table_name='contract_summaries')
    op.drop_index('ix_contract_summaries_triage', table_name='contract_summaries')
    op.drop_table('contract_summaries')
    op.drop_index('ix_documents_carried_from', table_name='documents')
    op.drop_index('ix_documents_updated_at', table_name='documents')
    op.drop_index('ix_documents_path', table_name='documents')
