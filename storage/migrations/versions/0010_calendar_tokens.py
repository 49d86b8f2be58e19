"""calendar tokens: each user's revocable secret for the deadlines calendar's .ics URL, stored hashed

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-16
"""
from alembic import op
import sqlalchemy as sa


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'calendar_tokens',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('revoked_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'),
    )
    op.create_index('ix_calendar_tokens_user_id', 'calendar_tokens', ['user_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_calendar_tokens_user_id', table_name='calendar_tokens')
    op.drop_table('calendar_tokens')
