-- results link the run's trace (app qa)
-- AlterTable
ALTER TABLE "qa_run_result" ADD COLUMN "trace_path" TEXT;
