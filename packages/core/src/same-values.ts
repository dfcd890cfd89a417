/**
 * True when two union types hold the same values, else false: `const _x: SameValues<WireEnum,
 * DatabaseEnum> = true` fails to compile when a zod enum and its Prisma enum drift (STYLE.md habit 3).
 */
export type SameValues<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
