-- qa recording organization (app qa)
-- AlterTable
ALTER TABLE "qa_recording" ADD COLUMN     "organization_id" UUID;

-- CreateIndex
CREATE INDEX "qa_recording_organization_id_idx" ON "qa_recording"("organization_id");

-- AddForeignKey
ALTER TABLE "qa_recording" ADD CONSTRAINT "qa_recording_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- existing recordings belong to the organization of the person who started them
UPDATE "qa_recording" SET "organization_id" = (SELECT "organization" FROM "res_user" WHERE "res_user"."record_uuid" = "qa_recording"."started_by") WHERE "started_by" IS NOT NULL;
