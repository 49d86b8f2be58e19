"""review workspace: users, claims with a lease and versions on review items, the decision trail

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('review_items', schema=None) as batch_op:
        batch_op.add_column(sa.Column('version', sa.Integer(), server_default='1', nullable=False))
        batch_op.add_column(sa.Column('assignee', sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column('claimed_by', sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column('lease_until', sa.DateTime(), nullable=True))
        batch_op.create_index('ix_review_items_lease_until', ['lease_until'], unique=False)
    op.create_table(
        'users',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('name', sa.String(length=80), nullable=False),
        sa.Column('role', sa.String(length=16), nullable=False),
        sa.Column('password_hash', sa.String(length=255), nullable=False),
        sa.Column('disabled', sa.Boolean(), server_default='0', nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    op.create_table(
        'review_decisions',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('item_id', sa.Integer(), nullable=True),
        sa.Column('document_id', sa.Integer(), nullable=False),
        sa.Column('reviewer', sa.String(length=80), nullable=False),
        sa.Column('action', sa.String(length=16), nullable=False),
        sa.Column('item_version', sa.Integer(), nullable=False),
        sa.Column('previous', sa.JSON(), nullable=False),
        sa.Column('new', sa.JSON(), nullable=False),
        sa.Column('reason', sa.String(length=32), nullable=True),
        sa.Column('comment', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['item_id'], ['review_items.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_review_decisions_item_id', 'review_decisions', ['item_id'], unique=False)
    op.create_index('ix_review_decisions_document_id', 'review_decisions', ['document_id'], unique=False)
    op.create_index('ix_review_decisions_created_at', 'review_decisions', ['created_at'], unique=False)


def downgrade() -> None:
    op.drop_table('review_decisions')
    op.drop_table('users')
    with op.batch_alter_table('review_items', schema=None) as batch_op:
        batch_op.drop_index('ix_review_items_lease_until')
        batch_op.drop_column('lease_until')
        batch_op.drop_column('claimed_by')
        batch_op.drop_column('assignee')
        batch_op.drop_column('version')
