import type { DataMigrationContext } from 'fw/app';

/**
 * Use cases promoted before this migration belong to their recording's organization, as new
 * promotions do; imported ones (no recording) stay the whole tenant's.
 */
export default async function ({ db }: DataMigrationContext): Promise<void> {
  const rows = await db.selectFrom('qa_usecase').innerJoin('qa_recording', 'qa_recording.record_uuid', 'qa_usecase.recording_id')
    .select(['qa_usecase.record_uuid as id', 'qa_recording.organization_id as organization_id'])
    .where('qa_usecase.source', '=', 'recording').execute();
  for (const row of rows) {
    if (row.organization_id === null) continue;
    await db.updateTable('qa_usecase').set({ organization_id: row.organization_id }).where('record_uuid', '=', row.id).execute();
  }
}
