-- initial schema (app base)
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

-- CreateTable
CREATE TABLE "ir_action" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "xml_id" TEXT,
    "name" TEXT NOT NULL,
    "model_key" TEXT NOT NULL,
    "view_type" TEXT NOT NULL DEFAULT 'list',
    "view_id" TEXT,
    "domain" JSONB
);

-- CreateTable
CREATE TABLE "ir_event" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "event_uuid" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "handler" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "source" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "available_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" DATETIME,
    "last_error" TEXT,
    "emitted_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" DATETIME
);

-- CreateTable
CREATE TABLE "ir_menu" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "xml_id" TEXT,
    "name" TEXT NOT NULL,
    "parent" TEXT,
    "action" TEXT,
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "icon" TEXT,
    "category" TEXT,
    "roles" TEXT,
    CONSTRAINT "ir_menu_parent_fkey" FOREIGN KEY ("parent") REFERENCES "ir_menu" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ir_menu_action_fkey" FOREIGN KEY ("action") REFERENCES "ir_action" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ir_module" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "seeded_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ir_session" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "user_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "family_id" TEXT NOT NULL,
    "refresh_token_hash" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL,
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "revoked_reason" TEXT,
    "revoked_at" DATETIME,
    "os" TEXT,
    "browser" TEXT,
    "ip" TEXT
);

-- CreateTable
CREATE TABLE "res_country" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "code3" TEXT,
    "numeric" TEXT
);

-- CreateTable
CREATE TABLE "res_organization" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "code" TEXT,
    "country" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    CONSTRAINT "res_organization_country_fkey" FOREIGN KEY ("country") REFERENCES "res_country" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "res_user" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "role" TEXT NOT NULL DEFAULT 'user',
    "organization" TEXT,
    CONSTRAINT "res_user_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "crm_lead_record_uuid_key" ON "crm_lead"("record_uuid");

-- CreateIndex
CREATE INDEX "crm_lead_organization_idx" ON "crm_lead"("organization");

-- CreateIndex
CREATE INDEX "crm_lead_country_idx" ON "crm_lead"("country");

-- CreateIndex
CREATE INDEX "crm_lead_salesperson_idx" ON "crm_lead"("salesperson");

-- CreateIndex
CREATE UNIQUE INDEX "ir_action_record_uuid_key" ON "ir_action"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_action_xml_id_key" ON "ir_action"("xml_id");

-- CreateIndex
CREATE UNIQUE INDEX "ir_event_record_uuid_key" ON "ir_event"("record_uuid");

-- CreateIndex
CREATE INDEX "ir_event_event_uuid_idx" ON "ir_event"("event_uuid");

-- CreateIndex
CREATE INDEX "ir_event_name_idx" ON "ir_event"("name");

-- CreateIndex
CREATE INDEX "ir_event_status_idx" ON "ir_event"("status");

-- CreateIndex
CREATE INDEX "ir_event_available_at_idx" ON "ir_event"("available_at");

-- CreateIndex
CREATE UNIQUE INDEX "ir_menu_record_uuid_key" ON "ir_menu"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_menu_xml_id_key" ON "ir_menu"("xml_id");

-- CreateIndex
CREATE INDEX "ir_menu_parent_idx" ON "ir_menu"("parent");

-- CreateIndex
CREATE INDEX "ir_menu_action_idx" ON "ir_menu"("action");

-- CreateIndex
CREATE UNIQUE INDEX "ir_module_record_uuid_key" ON "ir_module"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_module_name_key" ON "ir_module"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ir_session_record_uuid_key" ON "ir_session"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_session_refresh_token_hash_key" ON "ir_session"("refresh_token_hash");

-- CreateIndex
CREATE INDEX "ir_session_user_id_idx" ON "ir_session"("user_id");

-- CreateIndex
CREATE INDEX "ir_session_family_id_idx" ON "ir_session"("family_id");

-- CreateIndex
CREATE UNIQUE INDEX "res_country_record_uuid_key" ON "res_country"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "res_country_name_key" ON "res_country"("name");

-- CreateIndex
CREATE UNIQUE INDEX "res_country_code_key" ON "res_country"("code");

-- CreateIndex
CREATE UNIQUE INDEX "res_country_code3_key" ON "res_country"("code3");

-- CreateIndex
CREATE UNIQUE INDEX "res_organization_record_uuid_key" ON "res_organization"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "res_organization_code_key" ON "res_organization"("code");

-- CreateIndex
CREATE INDEX "res_organization_country_idx" ON "res_organization"("country");

-- CreateIndex
CREATE UNIQUE INDEX "res_user_record_uuid_key" ON "res_user"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "res_user_email_key" ON "res_user"("email");

-- CreateIndex
CREATE INDEX "res_user_organization_idx" ON "res_user"("organization");
