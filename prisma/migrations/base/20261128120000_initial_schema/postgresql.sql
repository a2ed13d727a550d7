-- initial schema (app base)
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
CREATE TABLE "ir_message" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "res_model" VARCHAR(100) NOT NULL,
    "res_id" UUID NOT NULL,
    "subject" VARCHAR(200),
    "body" TEXT NOT NULL,
    "message_type" VARCHAR(64) NOT NULL DEFAULT 'comment',
    "author_id" UUID,
    "author_name" VARCHAR(200),
    "link" VARCHAR(1000),

    CONSTRAINT "ir_message_pkey" PRIMARY KEY ("dbid")
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
CREATE UNIQUE INDEX "ir_action_record_uuid_key" ON "ir_action"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_action_xml_id_key" ON "ir_action"("xml_id");

-- CreateIndex
CREATE UNIQUE INDEX "ir_menu_record_uuid_key" ON "ir_menu"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_menu_xml_id_key" ON "ir_menu"("xml_id");

-- CreateIndex
CREATE INDEX "ir_menu_parent_idx" ON "ir_menu"("parent");

-- CreateIndex
CREATE INDEX "ir_menu_action_idx" ON "ir_menu"("action");

-- CreateIndex
CREATE UNIQUE INDEX "ir_message_record_uuid_key" ON "ir_message"("record_uuid");

-- CreateIndex
CREATE INDEX "ir_message_res_model_idx" ON "ir_message"("res_model");

-- CreateIndex
CREATE INDEX "ir_message_res_id_idx" ON "ir_message"("res_id");

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
ALTER TABLE "ir_menu" ADD CONSTRAINT "ir_menu_parent_fkey" FOREIGN KEY ("parent") REFERENCES "ir_menu"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ir_menu" ADD CONSTRAINT "ir_menu_action_fkey" FOREIGN KEY ("action") REFERENCES "ir_action"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "res_organization" ADD CONSTRAINT "res_organization_country_fkey" FOREIGN KEY ("country") REFERENCES "res_country"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "res_user" ADD CONSTRAINT "res_user_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;
