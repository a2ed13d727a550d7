-- initial schema (app base)
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

-- CreateTable
CREATE TABLE "ir_action" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "xml_id" VARCHAR(200),
    "name" VARCHAR(200) NOT NULL,
    "model_key" VARCHAR(100) NOT NULL,
    "view_type" VARCHAR(64) NOT NULL DEFAULT 'list',
    "view_id" VARCHAR(200),
    "domain" JSONB,

    CONSTRAINT "ir_action_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ir_event" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "event_uuid" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "handler" VARCHAR(200) NOT NULL,
    "tenant_id" VARCHAR(100) NOT NULL,
    "payload" JSONB NOT NULL,
    "source" VARCHAR(200),
    "status" VARCHAR(64) NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "available_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "emitted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "ir_event_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ir_menu" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "xml_id" VARCHAR(200),
    "name" VARCHAR(200) NOT NULL,
    "parent" UUID,
    "action" UUID,
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "icon" VARCHAR(100),
    "category" VARCHAR(50),
    "roles" VARCHAR(200),

    CONSTRAINT "ir_menu_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ir_module" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(100) NOT NULL,
    "version" VARCHAR(32) NOT NULL,
    "seeded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ir_module_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ir_session" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "user_id" UUID NOT NULL,
    "tenant_id" VARCHAR(100) NOT NULL,
    "family_id" UUID NOT NULL,
    "refresh_token_hash" VARCHAR(64) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "revoked_reason" VARCHAR(64),
    "revoked_at" TIMESTAMPTZ(3),
    "os" VARCHAR(100),
    "browser" VARCHAR(100),
    "ip" VARCHAR(64),

    CONSTRAINT "ir_session_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "res_country" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(100) NOT NULL,
    "code" VARCHAR(3) NOT NULL,
    "code3" VARCHAR(3),
    "numeric" VARCHAR(3),

    CONSTRAINT "res_country_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "res_organization" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(200) NOT NULL,
    "code" VARCHAR(63),
    "country" UUID,
    "is_active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "res_organization_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "res_user" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "email" VARCHAR(255) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "password_hash" VARCHAR(255),
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "role" VARCHAR(64) NOT NULL DEFAULT 'user',
    "organization" UUID,

    CONSTRAINT "res_user_pkey" PRIMARY KEY ("dbid")
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

-- AddForeignKey
ALTER TABLE "crm_lead" ADD CONSTRAINT "crm_lead_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crm_lead" ADD CONSTRAINT "crm_lead_country_fkey" FOREIGN KEY ("country") REFERENCES "res_country"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crm_lead" ADD CONSTRAINT "crm_lead_salesperson_fkey" FOREIGN KEY ("salesperson") REFERENCES "res_user"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ir_menu" ADD CONSTRAINT "ir_menu_parent_fkey" FOREIGN KEY ("parent") REFERENCES "ir_menu"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ir_menu" ADD CONSTRAINT "ir_menu_action_fkey" FOREIGN KEY ("action") REFERENCES "ir_action"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "res_organization" ADD CONSTRAINT "res_organization_country_fkey" FOREIGN KEY ("country") REFERENCES "res_country"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "res_user" ADD CONSTRAINT "res_user_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;
