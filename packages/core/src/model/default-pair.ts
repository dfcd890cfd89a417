/** The built-in pair that documents sent without `cc_pair_id` attach to (seeded by the first migration). */
export const DEFAULT_CC_PAIR_ID = 1;
export const DEFAULT_CC_PAIR_NAME = "DefaultCCPair";

/** The largest id a pair can have (PostgreSQL `integer`). */
export const MAX_PAIR_ID = 2_147_483_647;

/** The original service's message for a cc_pair_id that names no pair; clients match on it. */
export const CC_PAIR_NOT_FOUND = "Connector-Credential Pair specified does not exist";
