-- initial schema (app base)
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
CREATE TABLE "ir_message" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "res_model" TEXT NOT NULL,
    "res_id" TEXT NOT NULL,
    "subject" TEXT,
    "body" TEXT NOT NULL,
    "message_type" TEXT NOT NULL DEFAULT 'comment',
    "author_id" TEXT,
    "author_name" TEXT,
    "link" TEXT
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
