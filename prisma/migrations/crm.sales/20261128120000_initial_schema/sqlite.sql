-- initial schema (app crm.sales)
-- CreateTable
CREATE TABLE "crm_lead" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "stage" TEXT NOT NULL DEFAULT 'new',
    "expected_revenue" INTEGER NOT NULL DEFAULT 0,
    "probability" REAL,
    "notes" TEXT,
    "closed_at" DATETIME,
    "organization" TEXT,
    "country" TEXT,
    "salesperson" TEXT,
    CONSTRAINT "crm_lead_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "crm_lead_country_fkey" FOREIGN KEY ("country") REFERENCES "res_country" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "crm_lead_salesperson_fkey" FOREIGN KEY ("salesperson") REFERENCES "res_user" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "crm_lead_record_uuid_key" ON "crm_lead"("record_uuid");

-- CreateIndex
CREATE INDEX "crm_lead_organization_idx" ON "crm_lead"("organization");

-- CreateIndex
CREATE INDEX "crm_lead_country_idx" ON "crm_lead"("country");

-- CreateIndex
CREATE INDEX "crm_lead_salesperson_idx" ON "crm_lead"("salesperson");
