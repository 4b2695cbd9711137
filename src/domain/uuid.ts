const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The identifiers of both interfaces are UUIDs (any version, any case). */
export const isUuid = (s: string): boolean => UUID.test(s)
