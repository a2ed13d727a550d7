-- connector test message id and values (app connectors)
-- AlterTable
ALTER TABLE "ir_connector" ADD COLUMN "status_message_id" TEXT;
ALTER TABLE "ir_connector" ADD COLUMN "status_message_values" JSONB;
