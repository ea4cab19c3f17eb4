/**
 * The operations of the interface (docs/interface.md, "Base address and operations"), as data: the three it
 * documents, and `listOrders`, the `GET /store/orders` it names without describing (its 200 is petload's reading
 * of "exists"; 401 and 429 are what the interface says of every endpoint; its payload is not judged).
 */
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
  listOrders: {
    method: 'GET',
    path: '/store/orders',
    statuses: [200, 401, 429],
    deprecated: false,
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

/** The operations whose payloads the interface describes: the ones a load's traffic mix may weigh. */
export type PetOperationId = Exclude<OperationId, 'listOrders'>;
export const PET_OPERATION_IDS: readonly PetOperationId[] = ['listPets', 'createPet', 'getPet'];

/** The removal date of the deprecated endpoint, as a UTC Date. */
export const GET_PET_SUNSET = new Date(Date.UTC(2030, 11, 5));
