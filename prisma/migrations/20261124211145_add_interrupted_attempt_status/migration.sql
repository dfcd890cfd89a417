-- AlterEnum
ALTER TYPE "IndexingStatus" ADD VALUE 'interrupted';
