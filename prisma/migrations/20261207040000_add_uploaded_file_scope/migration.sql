-- AlterTable
ALTER TABLE "uploaded_file" ADD COLUMN     "scope_cc_pair_ids" INTEGER[] DEFAULT ARRAY[]::INTEGER[];
