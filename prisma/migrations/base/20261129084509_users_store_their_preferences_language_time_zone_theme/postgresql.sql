-- users store their preferences: language, time zone, theme (app base)
-- AlterTable
ALTER TABLE "res_user" ADD COLUMN     "lang" VARCHAR(64) NOT NULL DEFAULT 'en',
ADD COLUMN     "theme" VARCHAR(64) NOT NULL DEFAULT 'system',
ADD COLUMN     "tz" VARCHAR(64);
