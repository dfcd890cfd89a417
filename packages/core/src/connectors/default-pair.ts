/** The built-in pair that documents sent without `cc_pair_id` attach to (seeded by the first migration). */
export const DEFAULT_CC_PAIR_ID = 1;
export const DEFAULT_CC_PAIR_NAME = "DefaultCCPair";
