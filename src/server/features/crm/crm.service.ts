/**
 * The CRM feature's public surface: what its routers, REST adapters, job handlers and other
 * features (campaigns, studio, dashboard, billing, leads, the public API) call. The rules live in
 * one file per concern, the SQL in the `*.queries.ts` beside them:
 *
 * - crm.contacts.ts  reading, the detail page, create, edit, delete; lookups other features use
 * - crm.search.ts    the contacts list: search, counts, typo tolerance, API cursor pages
 * - crm.bulk.ts      bulk operations over ids or a filter
 * - crm.tags.ts      tags and lists (saved segments)
 * - crm.notes.ts     notes and timeline activities
 * - crm.messages.ts  one email, SMS or AI call to a contact
 * - crm.map.ts       located contacts and the radius search
 * - crm.imports.ts   starting imports and their progress (the streaming import: crm.import.ts)
 * - crm.export.ts    the CSV export
 * - crm.leads.ts     lead search businesses -> contacts (issue 13)
 * - crm.contact-json.ts the JSON shape of a contact (not "crm.json.ts": Node and tsx resolve "./crm.json" to a JSON file)
 */

export { bulkOperation } from "./crm.bulk";
export { type ContactJson, contactDisplayName, fieldsToColumns, toContactJson } from "./crm.contact-json";
export {
  contactFieldsOfListRow,
  countContacts,
  createContact,
  deleteContact,
  findOrCreateContacts,
  getContact,
  getContactDetail,
  getContactsByIds,
  hasContactAddress,
  matchContactsByAddress,
  recordContactOptIn,
  refreshContactSearchState,
  resolveTargetContactIds,
  settleImportSearch,
  updateContact,
} from "./crm.contacts";
export { EXPORT_COLUMNS, exportContactsCsv } from "./crm.export";
export {
  getImport,
  importContactLimit,
  importContactsJson,
  importErrorsCsv,
  importFilesCleanupForDeletion,
  startFileImport,
  toImportJson,
} from "./crm.imports";
export {
  type AddedBusinesses,
  ALREADY_IN_CONTACTS,
  addBusinessContacts,
  type BusinessContactInput,
  matchBusinessContacts,
  type SkippedBusiness,
  websiteDomain,
} from "./crm.leads";
export { listLocatedContacts, searchByLocation } from "./crm.map";
export {
  contactsCalledAt,
  contactsTextedAt,
  type DoNotCallStatus,
  getDoNotCall,
  getOptOuts,
  makeCallToContact,
  sendEmailToContact,
  sendSmsToContact,
  setDoNotCall,
  textedNumbers,
} from "./crm.messages";
export {
  addNote,
  countMessageActivity,
  deleteNote,
  ENGAGED_TYPES,
  editNote,
  listNotesPage,
  recordActivities,
  recordSmsStart,
  SENT_TYPES,
} from "./crm.notes";
export {
  exportOptOutsCsv,
  listOptOuts,
  OPT_OUT_EXPORT_COLUMNS,
  type OptOutListEntry,
  optOutListSchema,
} from "./crm.opt-outs";
export type { ListFilter } from "./crm.schemas";
export {
  BROAD_ESTIMATE,
  type ContactsPagination,
  forgetSearchPlannerHints,
  listContacts,
  listContactsJson,
  listContactsPage,
  listContactsPageJson,
  SEARCH_COUNT_CAP,
  TYPO_SIMILARITY,
} from "./crm.search";
export {
  createSegment,
  createTag,
  DEFAULT_TAG_COLOR,
  deleteSegment,
  deleteTag,
  listSegmentContactsPageJson,
  listSegments,
  listSegmentsPage,
  listTags,
  listTagsPage,
  tagContact,
  tagsOfContacts,
  untagContact,
  updateSegment,
} from "./crm.tags";
