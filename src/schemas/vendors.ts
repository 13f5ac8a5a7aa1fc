import { z } from './zod.js'

/** External vendor (2.1). Only vendors activated on the tenant work; the default is vendor_default. */
export const VENDORS = ['vendor_default', 'vendor_a', 'vendor_b'] as const
export const ExternalVendor = z.enum(VENDORS)
export type ExternalVendor = z.infer<typeof ExternalVendor>
export const DEFAULT_VENDOR: ExternalVendor = 'vendor_default'
