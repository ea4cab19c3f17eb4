/** The three documented operations (docs/interface.md, "Base address and operations"), as data. */
export const OPERATIONS = {
  listPets: {
    method: 'GET',
    path: '/pets',
    statuses: [200, 401, 429],
    deprecated: false,
  },
  createPet: {
    method: 'POST',
    path: '/pets',
    statuses: [201, 400, 401, 429],
    deprecated: false,
  },
  getPet: {
    method: 'GET',
    path: '/pets/{petId}',
    statuses: [200, 401, 404, 429],
    deprecated: true,
    /** Removal date announced by the interface (docs/interface.md, "Deprecation"). */
    removal: '2030-12-05',
    replacement: 'GET /pets?status=…',
  },
} as const satisfies Record<
  string,
  {
    method: 'GET' | 'POST';
    path: string;
    statuses: readonly number[];
    deprecated: boolean;
    removal?: string;
    replacement?: string;
  }
>;

export type OperationId = keyof typeof OPERATIONS;
export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];

/** The removal date of the deprecated endpoint, as a UTC Date. */
export const GET_PET_SUNSET = new Date(Date.UTC(2030, 11, 5));
