-- leads get an expected closing date (date_deadline), what their calendar view lays out (app crm.sales)
-- AlterTable
ALTER TABLE "crm_lead" ADD COLUMN "date_deadline" DATETIME;
