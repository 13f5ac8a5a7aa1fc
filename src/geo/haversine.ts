/** Mean Earth radius (IUGG), in kilometres. */
export const EARTH_RADIUS_KM = 6371.0088

const RADIANS = Math.PI / 180

/**
 * Great-circle distance in kilometres between two points given in degrees (haversine). Accurate
 * to about 0.5 % (the Earth is not a sphere), far better than postal-code centroids are.
 */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RADIANS
  const dLng = (lng2 - lng1) * RADIANS
  const a =
    Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RADIANS) * Math.cos(lat2 * RADIANS) * Math.sin(dLng / 2) ** 2
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)))
}
