// Where each API is served: the prefixes every request of the API tests starts with.
export const MANAGEMENT = '/edge/management/v1';
export const CLIENT = '/edge/client/v1';
