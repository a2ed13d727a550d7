-- use cases belong to the organization of their recording (app qa)
-- AlterTable
ALTER TABLE "qa_usecase" ADD COLUMN     "organization_id" UUID;

-- CreateIndex
CREATE INDEX "qa_usecase_organization_id_idx" ON "qa_usecase"("organization_id");

-- AddForeignKey
ALTER TABLE "qa_usecase" ADD CONSTRAINT "qa_usecase_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;
