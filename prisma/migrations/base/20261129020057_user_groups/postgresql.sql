-- user groups (app base)
-- AlterTable
ALTER TABLE "res_user" ADD COLUMN     "groups" JSONB;
