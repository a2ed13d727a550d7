-- qa screenshot every step by default (app qa)
-- AlterTable
ALTER TABLE "qa_recording_step" ALTER COLUMN "screenshot" SET DEFAULT 'always';

-- AlterTable
ALTER TABLE "qa_usecase_step" ALTER COLUMN "screenshot" SET DEFAULT 'always';
