/**
 * zod, as every module of skillhouse loads its values (types may come from 'zod' itself). The build
 * packs this module and the ~95 modules of zod behind it into one file (tools/bundle-vendors.mjs):
 * Node loads one file much faster than 95, and every command pays that at start-up.
 */
export * from 'zod'
