-- usage rows say how a call ended and why it cost what it did (app ai)
-- AlterTable
ALTER TABLE "ai_usage_log" ADD COLUMN "charge_basis" TEXT;
ALTER TABLE "ai_usage_log" ADD COLUMN "error_code" TEXT;
ALTER TABLE "ai_usage_log" ADD COLUMN "outcome" TEXT;
