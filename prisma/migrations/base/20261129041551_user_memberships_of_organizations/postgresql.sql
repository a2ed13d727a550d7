-- user memberships of organizations (app base)
-- CreateTable
CREATE TABLE "res_user_membership" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "user" UUID NOT NULL,
    "organization" UUID NOT NULL,

    CONSTRAINT "res_user_membership_pkey" PRIMARY KEY ("dbid")
);

-- CreateIndex
CREATE UNIQUE INDEX "res_user_membership_record_uuid_key" ON "res_user_membership"("record_uuid");

-- CreateIndex
CREATE INDEX "res_user_membership_user_idx" ON "res_user_membership"("user");

-- CreateIndex
CREATE INDEX "res_user_membership_organization_idx" ON "res_user_membership"("organization");

-- AddForeignKey
ALTER TABLE "res_user_membership" ADD CONSTRAINT "res_user_membership_user_fkey" FOREIGN KEY ("user") REFERENCES "res_user"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "res_user_membership" ADD CONSTRAINT "res_user_membership_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;
