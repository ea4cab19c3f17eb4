/**
 * The Animal Store resources as zod schemas (docs/interface.md, "Resources").
 * Shared by the checks (to judge responses) and the reference server (to validate requests).
 */
import * as z from 'zod';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** An int64 as it comes out of a lossless JSON parse: a safe JS integer, or a bigint for larger values. */
export const Int64 = z.union([
  z.number().int().refine(Number.isSafeInteger, 'integer beyond 2^53 was rounded: not a lossless int64'),
  z.bigint().refine((v) => v >= INT64_MIN && v <= INT64_MAX, 'outside the int64 range'),
]);
export type Int64 = z.infer<typeof Int64>;

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export const PetStatus = z.enum(PET_STATUSES);
export type PetStatus = z.infer<typeof PetStatus>;

export const NewPet = z.strictObject({
  name: z.string(),
  categoryId: Int64,
  status: PetStatus.optional(),
});
export type NewPet = z.infer<typeof NewPet>;

/** Pet has every field of NewPet plus `id`. Extra fields are tolerated (the interface does not forbid them). */
export const Pet = z.object({
  id: Int64,
  name: z.string(),
  categoryId: Int64,
  status: PetStatus.optional(),
});
export type Pet = z.infer<typeof Pet>;

/** The 200 body of GET /pets is a bare array. */
export const Pets = z.array(Pet);
export type Pets = z.infer<typeof Pets>;

export const ErrorBody = z.object({
  code: z.string().min(1),
  message: z.string().min(1),
  status: z.number().int(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Query constraints of GET /pets (docs/interface.md, "Page size and rate limits"). */
export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;
