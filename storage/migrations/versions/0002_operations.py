"""operations: the recovery sweep, the intake ledger, scheduled runs, incremental audits

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('batches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('origin', sa.String(length=16), server_default='audit', nullable=False))
    with op.batch_alter_table('documents', schema=None) as batch_op:
        batch_op.add_column(sa.Column('attempts', sa.Integer(), server_default='1', nullable=False))
        batch_op.add_column(sa.Column('fingerprint', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('carried_from', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_documents_fingerprint'), ['fingerprint'], unique=False)

    op.create_table('recoveries',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('batch_id', sa.String(length=64), nullable=False),
    sa.Column('stage', sa.String(length=32), nullable=True),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('recoveries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_recoveries_document_id'), ['document_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_recoveries_batch_id'), ['batch_id'], unique=False)

    op.create_table('intake_files',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('inbox', sa.Text(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('work_path', sa.Text(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=True),
    sa.Column('size_bytes', sa.Integer(), nullable=True),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('batch_id', sa.String(length=64), nullable=True),
    sa.Column('document_id', sa.Integer(), nullable=True),
    sa.Column('original_id', sa.Integer(), nullable=True),
    sa.Column('outcome_path', sa.Text(), nullable=True),
    sa.Column('claimed_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('work_path')
    )
    with op.batch_alter_table('intake_files', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_intake_files_sha256'), ['sha256'], unique=False)
        batch_op.create_index(batch_op.f('ix_intake_files_state'), ['state'], unique=False)
        batch_op.create_index(batch_op.f('ix_intake_files_batch_id'), ['batch_id'], unique=False)

    op.create_table('schedule_runs',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('schedule', sa.String(length=64), nullable=False),
    sa.Column('window_start', sa.DateTime(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('batch_id', sa.String(length=64), nullable=True),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('summary', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('schedule', 'window_start', name='uq_schedule_run_window')
    )
    with op.batch_alter_table('schedule_runs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_schedule_runs_state'), ['state'], unique=False)


def downgrade() -> None:
    op.drop_table('schedule_runs')
    op.drop_table('intake_files')
    op.drop_table('recoveries')
    with op.batch_alter_table('documents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_documents_fingerprint'))
        batch_op.drop_column('carried_from')
        batch_op.drop_column('fingerprint')
        batch_op.drop_column('attempts')
    with op.batch_alter_table('batches', schema=None) as batch_op:
        batch_op.drop_column('origin')
