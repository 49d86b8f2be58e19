"""clause types taught from examples (issue 44): the types, their example quotes, their trained versions

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""
from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'clause_types',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('slug', sa.String(length=32), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('created_by', sa.String(length=80), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('retired_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
        sa.UniqueConstraint('slug'),
    )
    op.create_table(
        'clause_type_examples',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('type_id', sa.Integer(), nullable=False),
        sa.Column('label', sa.Boolean(), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('source', sa.String(length=16), nullable=False),
        sa.Column('document_id', sa.Integer(), nullable=True),
        sa.Column('path', sa.Text(), nullable=True),
        sa.Column('start', sa.Integer(), nullable=True),
        sa.Column('end', sa.Integer(), nullable=True),
        sa.Column('added_by', sa.String(length=80), nullable=False),
        sa.Column('added_at', sa.DateTime(), nullable=False),
        sa.Column('withdrawn_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['type_id'], ['clause_types.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('type_id', 'key', name='uq_clause_type_example_key'),
    )
    op.create_index('ix_clause_type_examples_type_id', 'clause_type_examples', ['type_id'], unique=False)
    op.create_table(
        'clause_type_versions',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('type_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('version', sa.String(length=64), nullable=False),
        sa.Column('base_version', sa.String(length=64), nullable=False),
        sa.Column('weights', sa.LargeBinary(), nullable=False),
        sa.Column('examples', sa.Integer(), nullable=False),
        sa.Column('counter_examples', sa.Integer(), nullable=False),
        sa.Column('negatives', sa.Integer(), nullable=False),
        sa.Column('metrics', sa.JSON(), nullable=False),
        sa.Column('created_by', sa.String(length=80), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['type_id'], ['clause_types.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('type_id', 'number', name='uq_clause_type_version_number'),
        sa.UniqueConstraint('version'),
    )
    op.create_index('ix_clause_type_versions_type_id', 'clause_type_versions', ['type_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_clause_type_versions_type_id', table_name='clause_type_versions')
    op.drop_table('clause_type_versions')
    op.drop_index('ix_clause_type_examples_type_id', table_name='clause_type_examples')
    op.drop_table('clause_type_examples')
    op.drop_table('clause_types')
