-- session retry key (app auth)
-- AlterTable
ALTER TABLE "ir_session" ADD COLUMN "replaced_by" INTEGER;
ALTER TABLE "ir_session" ADD COLUMN "rotation_key_hash" TEXT;
