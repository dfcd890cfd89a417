import type { Db } from "@svc/db";

/** Text that makes indexing fail for real: a trigger on the chunk table rejects chunks holding it. */
export const POISON = "poisonpill";

export async function installPoisonTrigger(db: Db): Promise<void> {
  await db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION reject_poison() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.content LIKE '%${POISON}%' THEN RAISE EXCEPTION 'chunk rejected'; END IF;
      RETURN NEW;
    END $$`);
  await db.$executeRawUnsafe(
    `CREATE OR REPLACE TRIGGER reject_poison BEFORE INSERT ON document_chunk FOR EACH ROW EXECUTE FUNCTION reject_poison()`,
  );
}

export async function removePoisonTrigger(db: Db): Promise<void> {
  await db.$executeRawUnsafe(`DROP TRIGGER IF EXISTS reject_poison ON document_chunk`);
}
