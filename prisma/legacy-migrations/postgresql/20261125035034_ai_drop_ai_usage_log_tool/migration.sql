-- drop ai usage log tool (app ai)
-- AlterTable
ALTER TABLE "ai_usage_log" DROP COLUMN "tool";
