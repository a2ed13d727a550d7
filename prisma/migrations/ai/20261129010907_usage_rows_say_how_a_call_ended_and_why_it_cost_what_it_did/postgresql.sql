-- usage rows say how a call ended and why it cost what it did (app ai)
-- AlterTable
ALTER TABLE "ai_usage_log" ADD COLUMN     "charge_basis" VARCHAR(64),
ADD COLUMN     "error_code" VARCHAR(64),
ADD COLUMN     "outcome" VARCHAR(64);
