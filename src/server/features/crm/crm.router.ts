import { z } from "zod";
import { recordId } from "../../lib/validate";
import { protectedProcedure, router } from "../../trpc/init";
import { bulkOperationSchema, contactIdSchema, listContactsTrpcSchema } from "./crm.schemas";
import * as crm from "./crm.service";

const withId = z.object({ id: contactIdSchema });
/** Inputs validated by the service's own schemas (same messages as REST). */
const loose = z.record(z.string(), z.unknown());

/**
 * tRPC `crm` router: the same operations as the `/api/contacts...` REST adapters, through the same
 * service functions, scoped to `ctx.workspaceId`.
 */
export const crmRouter = router({
  /**
   * A page of the contacts list (GET /api/contacts), each contact with its tags (the list's tags
   * column); with `reachable`, only the contacts a campaign on that channel can address (the
   * builders' contact pickers).
   */
  list: protectedProcedure.input(listContactsTrpcSchema).query(async ({ ctx, input }) => {
    const { reachable, ...query } = input;
    const page = await crm.listContacts(ctx, ctx.workspaceId, query, { reachable });
    const tags = await crm.tagsOfContacts(
      ctx,
      ctx.workspaceId,
      page.contacts.map((c) => c.id),
    );
    return {
      ...page,
      contacts: page.contacts.map((c) => ({
        ...c,
        tags: tags
          .filter((t) => t.contact_id === c.id)
          .map((t) => ({ id: t.id, name: t.tag_name, color: t.tag_color })),
      })),
    };
  }),
  get: protectedProcedure
    .input(withId)
    .query(({ ctx, input }) => crm.getContactDetail(ctx, ctx.workspaceId, input.id, ctx.tenant)),
  create: protectedProcedure
    .input(loose)
    .mutation(async ({ ctx, input }) =>
      crm.toContactJson(await crm.createContact(ctx, ctx.workspaceId, input, { userId: ctx.tenant.userId })),
    ),
  update: protectedProcedure
    .input(withId.extend({ data: loose }))
    .mutation(async ({ ctx, input }) =>
      crm.toContactJson(await crm.updateContact(ctx, ctx.workspaceId, input.id, input.data)),
    ),
  delete: protectedProcedure.input(withId).mutation(async ({ ctx, input }) => {
    await crm.deleteContact(ctx, ctx.workspaceId, input.id);
    return { success: true as const };
  }),
  bulk: protectedProcedure
    .input(bulkOperationSchema)
    .mutation(({ ctx, input }) => crm.bulkOperation(ctx, ctx.workspaceId, input, ctx.tenant)),
  importRows: protectedProcedure
    .input(
      z.object({ contacts: z.array(loose).max(50_000), on_duplicate: z.enum(["skip", "update"]).optional() }),
    )
    .mutation(({ ctx, input }) =>
      crm.importContactsJson(ctx, ctx.workspaceId, input, { userId: ctx.tenant.userId }),
    ),
  importStatus: protectedProcedure
    .input(z.object({ importId: z.string().max(64) }))
    .query(({ ctx, input }) => crm.getImport(ctx, ctx.workspaceId, input.importId)),
  addNote: protectedProcedure
    .input(withId.extend({ note_text: z.string().max(10_000) }).strict())
    .mutation(({ ctx, input }) =>
      crm.addNote(
        ctx,
        ctx.workspaceId,
        input.id,
        { note_text: input.note_text },
        { userId: ctx.tenant.userId },
      ),
    ),
  editNote: protectedProcedure
    .input(withId.extend({ noteId: recordId("Note id"), note_text: z.string().max(10_000) }).strict())
    .mutation(({ ctx, input }) =>
      crm.editNote(ctx, ctx.workspaceId, input.id, input.noteId, { note_text: input.note_text }, ctx.tenant),
    ),
  deleteNote: protectedProcedure
    .input(withId.extend({ noteId: recordId("Note id") }))
    .mutation(async ({ ctx, input }) => {
      await crm.deleteNote(ctx, ctx.workspaceId, input.id, input.noteId, ctx.tenant);
      return { success: true as const };
    }),
  sendEmail: protectedProcedure
    .input(withId.extend({ subject: z.string().max(300), body: z.string().max(100_000) }))
    .mutation(({ ctx, input }) =>
      crm.sendEmailToContact(ctx, ctx.workspaceId, input.id, input, ctx.tenant.userId),
    ),
  sendSms: protectedProcedure
    .input(withId.extend({ message: z.string().max(1000) }))
    .mutation(({ ctx, input }) =>
      crm.sendSmsToContact(ctx, ctx.workspaceId, input.id, input, ctx.tenant.userId),
    ),
  makeCall: protectedProcedure
    .input(withId.extend({ script: z.string().max(5000) }))
    .mutation(({ ctx, input }) =>
      crm.makeCallToContact(ctx, ctx.workspaceId, input.id, input, ctx.tenant.userId),
    ),
  /** Whether the contact may be called (suppression list for calls), and why not. */
  doNotCall: protectedProcedure
    .input(withId)
    .query(({ ctx, input }) => crm.getDoNotCall(ctx, ctx.workspaceId, input.id)),
  /** The contact's opt-outs of email and texts (suppression list), shown beside its opt-in flags. */
  optOuts: protectedProcedure
    .input(withId)
    .query(({ ctx, input }) => crm.getOptOuts(ctx, ctx.workspaceId, input.id)),
  /**
   * The workspace's Opt-outs screen: a page of its suppression list with each entry's contact
   * (crm listOptOuts; read only: only the person can opt back in).
   */
  optOutList: protectedProcedure
    .input(loose.optional())
    .query(({ ctx, input }) => crm.listOptOuts(ctx, ctx.workspaceId, input ?? {})),
  /** The owner's "do not call" mark on the contact's numbers (a person's own opt-out cannot be lifted). */
  setDoNotCall: protectedProcedure
    .input(withId.extend({ do_not_call: z.boolean() }))
    .mutation(({ ctx, input }) =>
      crm.setDoNotCall(ctx, ctx.workspaceId, input.id, { do_not_call: input.do_not_call }),
    ),
  searchLocation: protectedProcedure
    .input(z.object({ latitude: z.number(), longitude: z.number(), radius_miles: z.number() }))
    .mutation(({ ctx, input }) => crm.searchByLocation(ctx, ctx.workspaceId, input)),
  mapContacts: protectedProcedure.query(({ ctx }) => crm.listLocatedContacts(ctx, ctx.workspaceId)),
  /** The contact map's basemap: MAP_STYLE_URL (a MapLibre style URL) or null for the offline outline only. */
  mapConfig: protectedProcedure.query(({ ctx }) => ({
    styleUrl: ctx.env.MAP_STYLE_URL === "offline" ? null : ctx.env.MAP_STYLE_URL,
  })),
  tags: protectedProcedure.query(({ ctx }) => crm.listTags(ctx, ctx.workspaceId)),
  createTag: protectedProcedure
    .input(z.strictObject({ name: z.string().max(50), color: z.string().max(7).optional() }))
    .mutation(({ ctx, input }) => crm.createTag(ctx, ctx.workspaceId, input)),
  lists: protectedProcedure.query(({ ctx }) => crm.listSegments(ctx, ctx.workspaceId)),
  createList: protectedProcedure
    .input(z.strictObject({ name: z.string().max(100), filter: loose.optional() }))
    .mutation(({ ctx, input }) => crm.createSegment(ctx, ctx.workspaceId, input)),
  /** Renames a saved segment and replaces its filter when one is given (crm updateSegment). */
  updateList: protectedProcedure
    .input(
      z.strictObject({
        id: recordId("List id"),
        name: z.string().max(100),
        filter: loose.optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      crm.updateSegment(ctx, ctx.workspaceId, input.id, { name: input.name, filter: input.filter }),
    ),
  deleteList: protectedProcedure
    .input(z.object({ id: recordId("List id") }))
    .mutation(async ({ ctx, input }) => {
      await crm.deleteSegment(ctx, ctx.workspaceId, input.id);
      return { success: true as const };
    }),
});
