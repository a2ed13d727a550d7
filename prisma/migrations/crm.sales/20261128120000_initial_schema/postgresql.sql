-- initial schema (app crm.sales)
-- CreateTable
CREATE TABLE "crm_lead" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(200) NOT NULL,
    "email" VARCHAR(255),
    "stage" VARCHAR(64) NOT NULL DEFAULT 'new',
    "expected_revenue" INTEGER NOT NULL DEFAULT 0,
    "probability" DOUBLE PRECISION,
    "notes" TEXT,
    "closed_at" TIMESTAMPTZ(3),
    "organization" UUID,
    "country" UUID,
    "salesperson" UUID,

    CONSTRAINT "crm_lead_pkey" PRIMARY KEY ("dbid")
);

-- CreateIndex
CREATE UNIQUE INDEX "crm_lead_record_uuid_key" ON "crm_lead"("record_uuid");

-- CreateIndex
CREATE INDEX "crm_lead_organization_idx" ON "crm_lead"("organization");

-- CreateIndex
CREATE INDEX "crm_lead_country_idx" ON "crm_lead"("country");

-- CreateIndex
CREATE INDEX "crm_lead_salesperson_idx" ON "crm_lead"("salesperson");

-- AddForeignKey
ALTER TABLE "crm_lead" ADD CONSTRAINT "crm_lead_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crm_lead" ADD CONSTRAINT "crm_lead_country_fkey" FOREIGN KEY ("country") REFERENCES "res_country"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crm_lead" ADD CONSTRAINT "crm_lead_salesperson_fkey" FOREIGN KEY ("salesperson") REFERENCES "res_user"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;
