import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RateLimiterRes } from "rate-limiter-flexible";
import { ZodError, z } from "zod";
import type { AppContext } from "../../context";
import { addJsonBodyParser } from "../../http/json-body";
import { sendMediaFile } from "../../http/media-file";
import {
  cursorId,
  cursorPage,
  decodeCursor,
  encodeCursor,
  keysetPage,
  pgTimestampText,
} from "../../lib/cursor";
import { AppError, markRaisedAfterChanges, raisedAfterChanges } from "../../lib/errors";
import { jsonWithRaw, RawJson } from "../../lib/raw-json";
import { describeZodError, issueParam, parseInput } from "../../lib/validate";
import { UNVERIFIED_SEND_MESSAGE } from "../auth/auth.service";
import * as campaigns from "../campaigns/campaigns.service";
import { launchVideoCampaign } from "../campaigns/campaigns.video";
import * as crm from "../crm/crm.service";
import * as leads from "../leads/leads.service";
import * as studio from "../studio/studio.service";
import * as webhooks from "../webhooks/webhooks.service";
import type { ApiScope } from "./api.schemas";
import {
  type ApiPrincipal,
  assertEventScopes,
  assertScope,
  authenticateApiKey,
  beginIdempotent,
  finishIdempotent,
  type IdempotencyClaim,
  requestFingerprint,
} from "./api.service";
import { toLeadResultJson, toLeadSearchJson, withV1FilterNames } from "./api.v1.leads";
import * as s from "./api.v1.schemas";

/** One route of the public API: the Fastify route and its OpenAPI operation come from this. */
export interface V1Route {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI form, under /api/v1: `/contacts/{id}` */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  scope: ApiScope;
  /** more about the operation for the OpenAPI document (e.g. a second scope some inputs need) */
  description?: string;
  /**
   * The query parameters. Closed when the route is registered (apiV1): a parameter not named here is
   * a 400 naming it, and a route without `query` takes none.
   */
  query?: z.ZodObject;
  body?: z.ZodType;
  /**
   * The body may be left out (read as `{}`: every field optional), as a body-less POST many clients
   * send; the document marks it not required. Otherwise a route with `body` refuses a missing one.
   */
  bodyOptional?: boolean;
  response: z.ZodType;
  /**
   * A file download instead of JSON: the handler sends the file itself on `reply` (Range requests
   * give 206, an unsatisfiable one 416) and the document describes the success as binary, this text
   * saying which media types it has; `response` is then unused.
   */
  binary?: string;
  /** success status (200 default) */
  status?: number;
  handler: (a: {
    ctx: AppContext;
    p: ApiPrincipal;
    params: Record<string, string>;
    query: any;
    body: any;
    req: FastifyRequest;
    reply: FastifyReply;
  }) => Promise<unknown>;
}

const intId = (raw: string | undefined, what: string) => {
  if (!raw || !/^\d{1,15}$/.test(raw)) throw new AppError("NOT_FOUND", `${what} not found`);
  return Number(raw);
};
const list = <T>(data: T[], next: string | null) => ({ object: "list" as const, data, next_cursor: next });
const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The campaigns services' names of a content field in a refusal's `param`, and v1's. */
const CAMPAIGN_CONTENT_PARAMS: Record<string, string> = {
  videoId: "content.video_id",
  audioUrl: "content.audio_url",
  audioMediaId: "content.audio_media_id",
};

/**
 * `e` with its `param` renamed from a service's input name to v1's (`names`: service name -> v1 name),
 * keeping its code, message and whether it was raised after changes (the Idempotency-Key keeps such
 * a refusal); any other error as it is.
 */
function withV1Param(e: unknown, names: Record<string, string>): unknown {
  if (!(e instanceof AppError)) return e;
  const param = (e.details as { param?: string } | undefined)?.param;
  if (!param || !Object.hasOwn(names, param)) return e;
  const renamed = new AppError(e.code, e.message, { param: names[param] });
  return raisedAfterChanges(e) ? markRaisedAfterChanges(renamed) : renamed;
}

/**
 * v1's 403 for a send by a key whose creator has not verified their email address (auth
 * assertCanSend's UNVERIFIED_SEND_MESSAGE, which tells a signed-in person to verify theirs): sends
 * act as the key's creator.
 */
const V1_UNVERIFIED_SEND_MESSAGE =
  "The person who created this API key has not verified their email address yet, so campaigns cannot be launched with it: they can open the link Pitchwise emailed them, or resend it from the banner at the top of the app. Until then, sends go only to their own address.";

/** The query of a route that takes no parameters: any parameter is a 400 naming it. */
const NO_QUERY = z.strictObject({});

const hasRawJson = (out: unknown): out is Record<string, unknown> =>
  out !== null && typeof out === "object" && Object.values(out).some((v) => v instanceof RawJson);

/** Cursor of the recipients list: the last recipient's id (recipients page by id). */
const recipientCursor = z.tuple([cursorId]);
/**
 * Cursor of the media list: the last item's `created_at::text` (microseconds kept) and id, newest
 * first. The earlier `[epoch ms, id]` form is refused ('cursor is not valid'): a millisecond key
 * cannot tell apart items created within the same millisecond.
 */
const mediaCursor = z.tuple([pgTimestampText, cursorId]);
/** Cursor of a lead search's results: the last result's position in the search's result order. */
const resultCursor = z.tuple([
  z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
]);

function campaignJson(c: campaigns.CampaignSummary) {
  return {
    id: c.id,
    name: c.name,
    channel: c.channel,
    status: c.status,
    recipient_count: c.recipientCount,
    counts: c.counts,
    progress: c.progress,
    scheduled_at: iso(c.scheduledAt),
    started_at: iso(c.startedAt),
    completed_at: iso(c.completedAt),
    created_at: iso(c.createdAt)!,
  };
}

/**
 * A media item as v1 gives it: its file, thumbnail and GIF at the v1 download routes (downloadMedia
 * and the two beside it), which take the API key, where the app's `/api/media/{id}/file` takes a
 * signed-in session only.
 */
function mediaJson(m: studio.PublicMedia) {
  const at = (kind: MediaDownload) => `/api/v1/media/${m.id}/${kind}`;
  return {
    id: m.id,
    name: m.name,
    type: m.type,
    url: at("file"),
    thumbnail_url: m.thumbnail_url === null ? null : at("thumbnail"),
    gif_url: m.gif_url === null ? null : at("gif"),
    mime_type: m.mime_type,
    size: m.size,
    duration: m.duration,
    width: m.width,
    height: m.height,
    status: m.status,
    processing_status: m.processing_status,
    created_at: m.created_at,
  };
}

/** The files of a media item v1 serves: its path segment, the studio's file kind, the document's words. */
const MEDIA_DOWNLOADS = [
  {
    kind: "file",
    file: "file",
    operationId: "downloadMedia",
    summary: "A media item's file",
    types: "video/mp4 (videos), audio/mpeg (audio), or the uploaded type while it is processed",
  },
  {
    kind: "thumbnail",
    file: "poster",
    operationId: "downloadMediaThumbnail",
    summary: "A video's thumbnail (its `thumbnail_url`)",
    types: "image/jpeg",
  },
  {
    kind: "gif",
    file: "gif",
    operationId: "downloadMediaGif",
    summary: "A video's animated GIF preview (its `gif_url`)",
    types: "image/gif",
  },
] as const satisfies readonly { kind: string; file: studio.MediaFileKind; [k: string]: string }[];
type MediaDownload = (typeof MEDIA_DOWNLOADS)[number]["kind"];

/** Every v1 route (issue 15). Handlers call the owning features' services; no second implementation. */
export const V1_ROUTES: V1Route[] = [
  // contacts
  {
    method: "GET",
    path: "/contacts",
    operationId: "listContacts",
    summary: "List contacts, newest first, with the list filters and cursor pagination",
    tag: "Contacts",
    scope: "contacts:read",
    query: s.contactListQuery,
    response: s.listOf(s.contactObject),
    handler: async ({ ctx, p, query }) => {
      const r = await crm.listContactsPageJson(
        ctx,
        p.tenant.workspaceId,
        {
          search: query.search,
          lifecycle_stage: query.lifecycle_stage,
          lead_status: query.lead_status,
          tag_id: query.tag_id,
        },
        query.limit,
        query.cursor,
      );
      return { object: "list" as const, data: r.json, next_cursor: r.nextCursor };
    },
  },
  {
    method: "POST",
    path: "/contacts",
    operationId: "createContact",
    summary: "Create a contact (first_name and email required)",
    description:
      "A person who opted out (the workspace's suppression list: unsubscribed, bounced, replied STOP, pressed 9) " +
      "stays opted out: email_opt_in left out defaults to false for an opted-out email, and an opt-in sent as " +
      "true for a channel they opted out of is refused with 409 (error.param names the flag; nothing is created). " +
      "Only the person can opt back in.",
    tag: "Contacts",
    scope: "contacts:write",
    body: s.contactCreateBody,
    response: s.contactObject,
    status: 201,
    handler: async ({ ctx, p, body }) =>
      crm.toContactJson(await crm.createContact(ctx, p.tenant.workspaceId, body, { apiKeyId: p.key.id })),
  },
  {
    method: "POST",
    path: "/contacts/bulk",
    operationId: "bulkUpsertContacts",
    summary: "Create or update up to 1,000 contacts by email",
    description:
      "A row whose person opted out (the workspace's suppression list) is imported with those opt-ins kept " +
      "false whatever it says (a new contact's default email opt-in too): counted in opt_outs_kept and listed " +
      "in error_rows with kept true and kind opted_out. Only the person can opt back in.",
    tag: "Contacts",
    scope: "contacts:write",
    body: s.contactBulkBody,
    response: s.bulkResult,
    handler: async ({ ctx, p, body }) =>
      crm.importContactsJson(
        ctx,
        p.tenant.workspaceId,
        { contacts: body.contacts, on_duplicate: "update" },
        { apiKeyId: p.key.id },
      ),
  },
  {
    method: "GET",
    path: "/contacts/{id}",
    operationId: "getContact",
    summary: "Get a contact",
    tag: "Contacts",
    scope: "contacts:read",
    response: s.contactObject,
    handler: async ({ ctx, p, params }) =>
      crm.toContactJson(await crm.getContact(ctx, p.tenant.workspaceId, intId(params.id, "Contact"))),
  },
  {
    method: "PATCH",
    path: "/contacts/{id}",
    operationId: "updateContact",
    summary: "Update any subset of a contact's fields",
    description:
      "email_opt_in, sms_opt_in or call_opt_in set to true while the contact's email or one of its numbers is " +
      "opted out of that channel (unsubscribed, bounced, replied STOP, pressed 9, a Do Not Call mark) is refused " +
      "with 409 and a sentence saying how they opted out (error.param names the flag); nothing is changed. " +
      "Only the person can opt back in (START for texts); the owner lifts their own Do Not Call mark in the app.",
    tag: "Contacts",
    scope: "contacts:write",
    body: s.contactUpdateBody,
    response: s.contactObject,
    handler: async ({ ctx, p, params, body }) =>
      crm.toContactJson(
        await crm.updateContact(ctx, p.tenant.workspaceId, intId(params.id, "Contact"), body),
      ),
  },
  {
    method: "DELETE",
    path: "/contacts/{id}",
    operationId: "deleteContact",
    summary:
      "Delete a contact: its notes, tag links and other activities go; its message history (sent, opened, clicked, replied, watched) stays in campaign reports, detached from the contact, and an opt-out of its address stays on the suppression list",
    tag: "Contacts",
    scope: "contacts:write",
    response: s.deletedResult,
    handler: async ({ ctx, p, params }) => {
      const id = intId(params.id, "Contact");
      await crm.deleteContact(ctx, p.tenant.workspaceId, id);
      return { id, deleted: true };
    },
  },
  // notes
  {
    method: "GET",
    path: "/contacts/{id}/notes",
    operationId: "listNotes",
    summary: "A contact's notes, newest first, cursor pagination",
    tag: "Notes",
    scope: "contacts:read",
    query: s.pageQuery,
    response: s.listOf(s.noteObject),
    handler: async ({ ctx, p, params, query }) => {
      const id = intId(params.id, "Contact");
      const r = await crm.listNotesPage(ctx, p.tenant.workspaceId, id, query.limit, query.cursor);
      return list(r.notes, r.nextCursor);
    },
  },
  {
    method: "POST",
    path: "/contacts/{id}/notes",
    operationId: "createNote",
    summary: "Add a note to a contact (a contact holds at most 500 notes; the 501st is refused with 409)",
    tag: "Notes",
    scope: "contacts:write",
    body: s.noteCreateBody,
    response: s.noteObject,
    status: 201,
    handler: async ({ ctx, p, params, body }) =>
      crm.addNote(ctx, p.tenant.workspaceId, intId(params.id, "Contact"), body, { apiKeyId: p.key.id }),
  },
  // tags
  {
    method: "GET",
    path: "/tags",
    operationId: "listTags",
    summary: "Tags with their contact counts, by name, cursor pagination",
    tag: "Tags",
    scope: "contacts:read",
    query: s.pageQuery,
    response: s.listOf(s.tagObject),
    handler: async ({ ctx, p, query }) => {
      const r = await crm.listTagsPage(ctx, p.tenant.workspaceId, query.limit, query.cursor);
      return list(r.tags, r.nextCursor);
    },
  },
  {
    method: "POST",
    path: "/tags",
    operationId: "createTag",
    summary: "Create a tag (a workspace holds at most 500; the 501st is refused with 409)",
    tag: "Tags",
    scope: "contacts:write",
    body: s.tagCreateBody,
    response: s.tagObject,
    status: 201,
    handler: async ({ ctx, p, body }) => crm.createTag(ctx, p.tenant.workspaceId, body),
  },
  {
    method: "DELETE",
    path: "/tags/{id}",
    operationId: "deleteTag",
    summary: "Delete a tag (it comes off every contact); a tag a segment filters on is refused (409)",
    tag: "Tags",
    scope: "contacts:write",
    response: s.deletedResult,
    handler: async ({ ctx, p, params }) => {
      const id = intId(params.id, "Tag");
      await crm.deleteTag(ctx, p.tenant.workspaceId, id);
      return { id, deleted: true };
    },
  },
  {
    method: "POST",
    path: "/contacts/{id}/tags",
    operationId: "tagContact",
    summary: "Put a tag on a contact (a no-op when it already has it)",
    tag: "Tags",
    scope: "contacts:write",
    body: s.contactTagBody,
    response: s.contactTagObject,
    handler: async ({ ctx, p, params, body }) =>
      crm.tagContact(ctx, p.tenant.workspaceId, intId(params.id, "Contact"), body.tag_id),
  },
  {
    method: "DELETE",
    path: "/contacts/{id}/tags/{tag_id}",
    operationId: "untagContact",
    summary: "Take a tag off a contact",
    tag: "Tags",
    scope: "contacts:write",
    response: s.contactTagDeleted,
    handler: async ({ ctx, p, params }) => ({
      ...(await crm.untagContact(
        ctx,
        p.tenant.workspaceId,
        intId(params.id, "Contact"),
        intId(params.tag_id, "Tag"),
      )),
      deleted: true as const,
    }),
  },
  // segments
  {
    method: "GET",
    path: "/segments",
    operationId: "listSegments",
    summary: "Saved segments (lists) with their contact counts, by name, cursor pagination",
    tag: "Segments",
    scope: "contacts:read",
    query: s.pageQuery,
    response: s.listOf(s.segmentObject),
    handler: async ({ ctx, p, query }) => {
      const r = await crm.listSegmentsPage(ctx, p.tenant.workspaceId, query.limit, query.cursor);
      return list(r.segments, r.nextCursor);
    },
  },
  {
    method: "POST",
    path: "/segments",
    operationId: "createSegment",
    summary: "Save a segment (a name and a contact filter; at most 100 per workspace, then 409)",
    tag: "Segments",
    scope: "contacts:write",
    body: s.segmentCreateBody,
    response: s.segmentObject,
    status: 201,
    handler: async ({ ctx, p, body }) => crm.createSegment(ctx, p.tenant.workspaceId, body),
  },
  {
    method: "GET",
    path: "/segments/{id}/contacts",
    operationId: "listSegmentContacts",
    summary: "The contacts a segment matches now, newest first, cursor pagination",
    tag: "Segments",
    scope: "contacts:read",
    query: s.pageQuery,
    response: s.listOf(s.contactObject),
    handler: async ({ ctx, p, params, query }) => {
      const r = await crm.listSegmentContactsPageJson(
        ctx,
        p.tenant.workspaceId,
        intId(params.id, "List"),
        query.limit,
        query.cursor,
      );
      return { object: "list" as const, data: r.json, next_cursor: r.nextCursor };
    },
  },
  // campaigns
  {
    method: "GET",
    path: "/campaigns",
    operationId: "listCampaigns",
    summary: "Campaigns, newest first, with per-status counters",
    tag: "Campaigns",
    scope: "campaigns:read",
    query: s.campaignListQuery,
    response: s.listOf(s.campaignObject),
    handler: async ({ ctx, p, query }) => {
      // the cursor is base64url of the last campaign's id in decimal digits, as this route makes it;
      // anything else (`0x10`, `1e3`, ` 7`, which Number() read as ids) is refused
      let beforeId: number | undefined;
      if (query.cursor) {
        const text = Buffer.from(query.cursor, "base64url").toString("utf8");
        beforeId = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN;
        if (!Number.isSafeInteger(beforeId))
          throw new AppError("BAD_REQUEST", "cursor is not valid", { param: "cursor" });
      }
      const rows = await campaigns.listCampaigns(ctx, p.tenant.workspaceId, {
        limit: query.limit + 1,
        beforeId,
      });
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return list(
        page.map(campaignJson),
        rows.length > query.limit && last ? Buffer.from(String(last.id)).toString("base64url") : null,
      );
    },
  },
  {
    method: "POST",
    path: "/campaigns",
    operationId: "createCampaign",
    summary:
      "Create and launch (or schedule) a campaign on any channel; video_email / video_sms send a library video (content.video_id) with personal landing pages",
    tag: "Campaigns",
    scope: "campaigns:write",
    description:
      "A video campaign (video_email / video_sms) with `content.video_id` also needs `media:read`: its recipients' " +
      "landing pages play that library video. Video campaigns take the fields of the app's video campaign call " +
      "(video_id or avatar_script, message, subject, cta_label, cta_url) and count against the plan's video messages. " +
      "An identical launch (same channel, name, content, schedule and recipients) within 10 minutes of one that was " +
      "not cancelled answers that campaign and sends nothing again, with or without an Idempotency-Key.",
    body: s.campaignCreateBody,
    response: s.launchResult,
    status: 201,
    handler: async ({ ctx, p, body }) => {
      const b = body as s.CampaignCreateBody;
      // the campaigns services name a refused field as their input does (videoId, audioUrl): v1 names
      // it as its body does (content.video_id, content.audio_url)
      const contentParam = (e: unknown): never => {
        throw withV1Param(e, CAMPAIGN_CONTENT_PARAMS);
      };
      if (s.isVideoChannel(b.channel)) {
        // the landing pages play the library video to whoever holds a link: reading the media library
        // is part of this call, so a key without media:read cannot send (and so watch) its videos
        if (b.content.video_id !== undefined) assertScope(p, "media:read");
        const r = await launchVideoCampaign(
          ctx,
          p.tenant.workspaceId,
          s.toVideoCampaignInput(b),
          p.tenant.userId,
        ).catch(contentParam);
        return { campaign: campaignJson(r.campaign), queued: r.queued, skipped: r.skipped };
      }
      const r = await campaigns
        .createAndLaunchCampaign(
          ctx,
          p.tenant.workspaceId,
          s.toCampaignInput(b),
          p.tenant.userId,
          p.tenant.workspace,
        )
        .catch(contentParam);
      return { campaign: campaignJson(r.campaign), queued: r.queued, skipped: r.skipped };
    },
  },
  {
    method: "GET",
    path: "/campaigns/{id}",
    operationId: "getCampaign",
    summary: "A campaign with its counters",
    tag: "Campaigns",
    scope: "campaigns:read",
    response: s.campaignObject,
    handler: async ({ ctx, p, params }) => {
      const r = await campaigns.getCampaignReport(ctx, p.tenant.workspaceId, intId(params.id, "Campaign"));
      return campaignJson(r.campaign);
    },
  },
  ...(["pause", "resume", "cancel"] as const).map(
    (action): V1Route => ({
      method: "POST",
      path: `/campaigns/{id}/${action}`,
      operationId: `${action}Campaign`,
      summary: `${action[0]!.toUpperCase()}${action.slice(1)} a campaign`,
      tag: "Campaigns",
      scope: "campaigns:write",
      response: s.statusResult,
      handler: async ({ ctx, p, params }) => {
        const id = intId(params.id, "Campaign");
        const fn = {
          pause: campaigns.pauseCampaign,
          resume: campaigns.resumeCampaign,
          cancel: campaigns.cancelCampaign,
        }[action];
        const r = await fn(ctx, p.tenant.workspaceId, id);
        return { id, status: r.status };
      },
    }),
  ),
  {
    method: "POST",
    path: "/campaigns/{id}/reschedule",
    operationId: "rescheduleCampaign",
    summary: "Move a scheduled campaign to another send time",
    tag: "Campaigns",
    scope: "campaigns:write",
    description:
      "Only a campaign that is still scheduled moves (one that started, was paused or cancelled is a 409), to a " +
      "time at least a minute and at most 365 days ahead (400 otherwise). Its unsent messages count in the " +
      "billing period of the new time (402 when that period's limit is reached). Emits campaign.rescheduled.",
    body: s.campaignRescheduleBody,
    response: s.rescheduleResult,
    handler: async ({ ctx, p, params, body }) => {
      const id = intId(params.id, "Campaign");
      const b = body as z.output<typeof s.campaignRescheduleBody>;
      // the tRPC procedure's service and input (campaigns.schemas rescheduleInput) with the v1 name,
      // in its refusals' `param` too (a time less than a minute ahead: scheduledAt -> scheduled_at)
      const r = await campaigns
        .rescheduleCampaign(ctx, p.tenant.workspaceId, { id, scheduledAt: b.scheduled_at })
        .catch((e: unknown) => {
          throw withV1Param(e, { scheduledAt: "scheduled_at" });
        });
      return { id, status: r.status, scheduled_at: r.scheduledAt.toISOString() };
    },
  },
  {
    method: "GET",
    path: "/campaigns/{id}/recipients",
    operationId: "listCampaignRecipients",
    summary: "A campaign's recipients with their delivery status",
    tag: "Campaigns",
    scope: "campaigns:read",
    query: s.recipientListQuery,
    response: s.listOf(s.recipientObject),
    handler: async ({ ctx, p, params, query }) => {
      const id = intId(params.id, "Campaign");
      // keyset by recipient id: a page of any limit continues after the last row seen
      const r = await cursorPage(
        query.cursor,
        recipientCursor,
        query.limit,
        async (n, after) =>
          (
            await campaigns.listRecipients(ctx, p.tenant.workspaceId, {
              id,
              status: query.status,
              limit: n,
              afterId: after?.[0],
            })
          ).recipients,
        (x) => [x.id],
      );
      return list(
        r.rows.map((x) => ({
          id: x.id,
          contact_id: x.contactId,
          name: x.name ?? null,
          address: x.address ?? null,
          status: x.status,
          reason: x.reason,
          attempts: x.attempts,
          sent_at: iso(x.sentAt),
          delivered_at: iso(x.deliveredAt),
          opened_at: iso(x.openedAt),
          clicked_at: iso(x.clickedAt),
          replied_at: iso(x.repliedAt),
          reply_text: x.replyText,
          opted_out_at: iso(x.optedOutAt),
          answered_by: x.answeredBy,
          call_seconds: x.callSeconds,
        })),
        r.nextCursor,
      );
    },
  },
  // media
  {
    method: "GET",
    path: "/media",
    operationId: "listMedia",
    summary: "Media items (videos, audio, images), newest first",
    tag: "Media",
    scope: "media:read",
    query: s.mediaListQuery,
    response: s.listOf(s.mediaObject),
    handler: async ({ ctx, p, query }) => {
      // keyset page read in SQL (limit + 1 rows), newest first by (created_at, id): the cursor is
      // the last item's key, its created_at as Postgres text
      const after = decodeCursor(query.cursor, mediaCursor);
      const fetched = await studio.listMediaPage(ctx, p.tenant.workspaceId, {
        limit: query.limit,
        after: after && { createdAt: after[0], id: after[1] },
      });
      const r = keysetPage(fetched, query.limit, (x) => [x.ts, x.m.id]);
      return list(
        r.rows.map((x) => mediaJson(studio.toPublicMedia(x.m))),
        r.nextCursor,
      );
    },
  },
  {
    method: "GET",
    path: "/media/{id}",
    operationId: "getMedia",
    summary: "A media item",
    tag: "Media",
    scope: "media:read",
    response: s.mediaObject,
    handler: async ({ ctx, p, params }) =>
      mediaJson(
        studio.toPublicMedia(await studio.getMedia(ctx, p.tenant.workspaceId, intId(params.id, "Media"))),
      ),
  },
  ...MEDIA_DOWNLOADS.map(
    (d): V1Route => ({
      method: "GET",
      path: `/media/{id}/${d.kind}`,
      operationId: d.operationId,
      summary: d.summary,
      tag: "Media",
      scope: "media:read",
      response: z.never(),
      binary: d.types,
      description:
        "Answers the file's bytes with its Content-Type, Content-Length and Accept-Ranges: bytes; a `Range: bytes=start-end` request gets 206 Partial Content with Content-Range, one past the file's end 416. 404 while the file is not ready" +
        (d.kind === "file"
          ? "."
          : `, and for an audio recording, which never has one (its \`${d.kind === "gif" ? "gif_url" : "thumbnail_url"}\` is null): only videos have a thumbnail and a GIF preview.`),
      handler: async ({ ctx, p, params, req, reply }) => {
        const item = await studio.getMedia(ctx, p.tenant.workspaceId, intId(params.id, "Media"));
        // 'File not ready yet' (studio openMediaFile) would have a client wait for a file that never comes
        if (d.kind !== "file" && item.type !== "video")
          throw new AppError(
            "NOT_FOUND",
            `Only videos have a ${d.kind === "gif" ? "GIF preview" : "thumbnail"}: this item is an audio recording (its ${d.kind === "gif" ? "gif_url" : "thumbnail_url"} is null). Its file is at /api/v1/media/${item.id}/file.`,
          );
        return sendMediaFile(ctx, req, reply, item, d.file, "private, no-cache", undefined, {
          unsatisfiable: (size) =>
            errorBody(
              416,
              `The Range header asks for bytes past the end of the file (${size} bytes).`,
              "Range",
            ),
        });
      },
    }),
  ),
  // lead searches
  {
    method: "POST",
    path: "/lead_searches",
    operationId: "createLeadSearch",
    summary:
      "Run a business lead search (counts against the plan's searches per month); with enrich, website enrichment follows in the background and lead_search.completed is sent when it is done",
    tag: "Lead searches",
    scope: "leads:read",
    body: s.leadSearchCreateBody,
    response: s.leadSearchObject,
    status: 201,
    handler: async ({ ctx, p, body }) => {
      // the leads service's 'Unknown preset' names no field; v1 names it (`param: preset`)
      if (body.preset !== undefined && !leads.listPresets(ctx).some((x) => x.id === body.preset))
        throw new AppError(
          "BAD_REQUEST",
          `Unknown preset: ${body.preset}. The presets are ${leads
            .listPresets(ctx)
            .map((x) => x.id)
            .join(", ")}`,
          { param: "preset" },
        );
      const r = await withV1FilterNames(() =>
        leads.searchBusinesses(ctx, p.tenant, {
          location: body.location,
          businessType: body.business_type,
          radius: body.radius,
          searchRadius: body.search_radius,
          filters: body.filters ?? {},
          usePreset: body.preset,
          enrich: body.enrich,
        }),
      );
      return toLeadSearchJson(await leads.getSearch(ctx, p.tenant, r.searchId));
    },
  },
  {
    method: "GET",
    path: "/lead_searches/{id}",
    operationId: "getLeadSearch",
    summary: "A lead search with its counts and enrichment progress",
    tag: "Lead searches",
    scope: "leads:read",
    response: s.leadSearchObject,
    handler: async ({ ctx, p, params }) =>
      toLeadSearchJson(await leads.getSearch(ctx, p.tenant, params.id ?? "")),
  },
  {
    method: "GET",
    path: "/lead_searches/{id}/results",
    operationId: "listLeadSearchResults",
    summary:
      "The search's results in result order (Google results past 30 days: place ids only), cursor pagination",
    tag: "Lead searches",
    scope: "leads:read",
    query: s.leadResultsQuery,
    response: s.listOf(s.leadResultObject),
    handler: async ({ ctx, p, params, query }) => {
      // keyset by the result's position in the search's result order
      const after = decodeCursor(query.cursor, resultCursor);
      const r = await leads.getSearchResults(ctx, p.tenant, params.id ?? "", 0, query.limit, after?.[0]);
      return list(
        r.results.map(toLeadResultJson),
        r.hasMore && r.lastPosition !== null ? encodeCursor([r.lastPosition]) : null,
      );
    },
  },
  // webhook endpoints
  {
    method: "GET",
    path: "/webhook_endpoints",
    operationId: "listWebhookEndpoints",
    summary: "Webhook endpoints, newest first, cursor pagination",
    tag: "Webhooks",
    scope: "webhooks:write",
    query: s.pageQuery,
    response: s.listOf(s.endpointObject),
    handler: async ({ ctx, p, query }) => {
      const r = await webhooks.listEndpointsPage(ctx, p.tenant, query.limit, query.cursor);
      return list(r.endpoints, r.nextCursor);
    },
  },
  {
    method: "POST",
    path: "/webhook_endpoints",
    operationId: "createWebhookEndpoint",
    summary: "Create a webhook endpoint; the signing secret is returned once",
    tag: "Webhooks",
    scope: "webhooks:write",
    description:
      "Each subscribed event also needs the scope that reads its data: contact.* `contacts:read`, campaign.*, " +
      "message.* and video.viewed `campaigns:read`, lead_search.* `leads:read` (403 naming the missing scope).",
    body: s.endpointCreateBody,
    response: s.endpointWithSecret,
    status: 201,
    handler: async ({ ctx, p, body }) => {
      // the endpoint receives its events' data: the key must be able to read it
      assertEventScopes(p, (body as { events: webhooks.WebhookEventType[] }).events);
      return webhooks.createEndpoint(ctx, p.tenant, body);
    },
  },
  {
    method: "GET",
    path: "/webhook_endpoints/{id}",
    operationId: "getWebhookEndpoint",
    summary: "A webhook endpoint",
    tag: "Webhooks",
    scope: "webhooks:write",
    response: s.endpointObject,
    handler: async ({ ctx, p, params }) => webhooks.getEndpoint(ctx, p.tenant, params.id ?? ""),
  },
  {
    method: "PATCH",
    path: "/webhook_endpoints/{id}",
    operationId: "updateWebhookEndpoint",
    summary: "Enable, disable or change a webhook endpoint",
    tag: "Webhooks",
    scope: "webhooks:write",
    description:
      "Changing `events` or `url`, or enabling the endpoint, needs the scopes of the events it is then " +
      "subscribed to (see createWebhookEndpoint); disabling it does not.",
    body: s.endpointUpdateBody,
    response: s.endpointObject,
    handler: async ({ ctx, p, params, body }) => {
      const b = body as { url?: string; events?: webhooks.WebhookEventType[]; enabled?: boolean };
      // a new URL or re-enabling sends the endpoint's events somewhere too: same rule as creating it
      if (b.events || b.url !== undefined || b.enabled === true)
        assertEventScopes(p, b.events ?? (await webhooks.getEndpoint(ctx, p.tenant, params.id ?? "")).events);
      return webhooks.updateEndpoint(ctx, p.tenant, params.id ?? "", body);
    },
  },
  {
    method: "DELETE",
    path: "/webhook_endpoints/{id}",
    operationId: "deleteWebhookEndpoint",
    summary: "Delete a webhook endpoint and its delivery log",
    tag: "Webhooks",
    scope: "webhooks:write",
    response: s.deletedResult,
    handler: async ({ ctx, p, params }) => {
      await webhooks.deleteEndpoint(ctx, p.tenant, params.id ?? "");
      return { id: params.id!, deleted: true };
    },
  },
  {
    method: "POST",
    path: "/webhook_endpoints/{id}/rotate_secret",
    operationId: "rotateWebhookEndpointSecret",
    summary: "Roll the endpoint's signing secret; the new secret is returned once",
    tag: "Webhooks",
    scope: "webhooks:write",
    description:
      "For a secret that leaked, or routine rotation. The replaced secret keeps signing deliveries beside the new one " +
      `for \`expires_in_hours\` (default ${webhooks.ROLL_SECRET_DEFAULT_HOURS}, 0 to ${webhooks.ROLL_SECRET_MAX_HOURS}; 0 stops it at once): ` +
      "meanwhile `webhook-signature` carries both (`v1,<new> v1,<old>`), and a Standard Webhooks library accepts the " +
      "delivery with either secret, so the receiver can switch without losing one. `previous_secret_expires_at` says " +
      "until when. Rolling again replaces the previous secret. The body may be left out.",
    body: s.rotateSecretBody,
    bodyOptional: true,
    response: s.endpointWithSecret,
    handler: async ({ ctx, p, params, body }) =>
      webhooks.rotateEndpointSecret(ctx, p.tenant, params.id ?? "", {
        expiresInHours: (body as { expires_in_hours?: number }).expires_in_hours,
      }),
  },
  {
    method: "GET",
    path: "/webhook_endpoints/{id}/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "The endpoint's deliveries, newest first, cursor pagination",
    tag: "Webhooks",
    scope: "webhooks:write",
    query: s.pageQuery,
    response: s.listOf(s.deliveryObject),
    handler: async ({ ctx, p, params, query }) => {
      const r = await webhooks.listDeliveriesPage(ctx, p.tenant, params.id ?? "", query.limit, query.cursor);
      return list(r.deliveries, r.nextCursor);
    },
  },
  {
    method: "POST",
    path: "/webhook_endpoints/{id}/test",
    operationId: "sendWebhookTestEvent",
    summary: "Send a test event of one of the endpoint's event types to the endpoint",
    tag: "Webhooks",
    scope: "webhooks:write",
    description:
      "The event's `data` is the type's example, with every field the real event has (see Webhooks), and `test: true`. " +
      "`type` must be one of the endpoint's events (400 otherwise); without it, its first. " +
      "The delivery is queued (status pending until its attempt is recorded). A disabled endpoint is refused with 409. The body may be left out.",
    body: s.testEventBody,
    bodyOptional: true,
    response: s.testEventResult,
    handler: async ({ ctx, p, params, body }) =>
      webhooks.sendTestEvent(ctx, p.tenant, params.id ?? "", {
        type: (body as { type?: webhooks.WebhookEventType }).type,
      }),
  },
  {
    method: "POST",
    path: "/webhook_deliveries/{id}/resend",
    operationId: "resendWebhookDelivery",
    summary: "Send a delivery again (same event, same webhook-id)",
    tag: "Webhooks",
    scope: "webhooks:write",
    description: "A delivery of a disabled endpoint is refused with 409.",
    response: s.resendResult,
    handler: async ({ ctx, p, params }) => webhooks.resendDelivery(ctx, p.tenant, params.id ?? ""),
  },
];

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "payment_required",
  403: "permission_error",
  404: "not_found",
  409: "conflict",
  413: "invalid_request_error",
  415: "invalid_request_error",
  422: "invalid_request_error",
  429: "rate_limit_error",
};

function errorBody(status: number, message: string, param?: string) {
  return {
    error: {
      type: ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"),
      message,
      ...(param ? { param } : {}),
    },
  };
}

declare module "fastify" {
  interface FastifyRequest {
    /** the API key's principal on /api/v1 routes */
    apiPrincipal?: ApiPrincipal;
    /** the Idempotency-Key claim this POST holds (its lease renewed until its response is stored) */
    idempotencyClaim?: IdempotencyClaim;
    /**
     * the error this request ends with was raised after it had committed changes (lib/errors
     * raisedAfterChanges): its 4xx is stored under the Idempotency-Key (api.service keepsIdempotentAnswer)
     */
    idempotencyAfterChanges?: boolean;
  }
}

/** Sets the IETF RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers) from a limiter result. */
function rateHeaders(reply: FastifyReply, limit: number, r: RateLimiterRes) {
  reply.header("RateLimit-Limit", String(limit));
  reply.header("RateLimit-Remaining", String(Math.max(0, r.remainingPoints)));
  reply.header("RateLimit-Reset", String(Math.max(1, Math.ceil(r.msBeforeNext / 1000))));
}

/**
 * The public REST API v1 (issue 15), registered under the `/api/v1` prefix as its own encapsulated
 * plugin: `Authorization: Bearer pw_live_...` is the only credential here (session cookies are not
 * read on /api/v1, and bearer keys are read nowhere else); each key acts for its workspace with its
 * scopes; the workspace's plan is checked on every request (402 once it loses API access); per-key
 * rate limit with RateLimit-* headers (429 + Retry-After); `Idempotency-Key` on POSTs; every response
 * carries `Request-Id`; errors are `{error: {type, message, param?}}`. Query strings and request bodies
 * are closed: an unknown query parameter or body field is a 400 naming it in `param`.
 */
export async function apiV1(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // An empty body sent as application/json (what many clients send on a body-less POST such as
  // /campaigns/{id}/pause) is no body at all rather than invalid JSON: the route handler refuses it
  // where a body is needed ("The request body is missing ..."). Anything else goes to Fastify's own
  // JSON parser (same prototype-poisoning rules). Scoped to this plugin.
  //
  // JSON is the only body type here (the document's 415): the app-wide text/plain, form and
  // multipart parsers are removed in this plugin, and a body of any other type is a 415 saying to
  // send JSON. Before, `text/plain` was parsed as a string ("must be a JSON object", a 400) and a
  // form body as fields (a 400 naming the whole JSON text as an unknown field). An empty body of any
  // type is still no body (`curl -X POST -d ''` sends an empty form).
  app.removeAllContentTypeParsers();
  addJsonBodyParser(app);
  app.addContentTypeParser("*", { parseAs: "string" }, (req, body, done) => {
    if (typeof body === "string" && body.trim() === "") return done(null, undefined);
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().slice(0, 60);
    return done(
      new AppError(
        "UNSUPPORTED_MEDIA_TYPE",
        `The request body must be JSON: send it with Content-Type: application/json (${type ? `got '${type}'` : "it had no Content-Type"}).`,
      ),
      undefined,
    );
  });
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    // a refusal after changes were committed is kept under the Idempotency-Key (onSend below)
    if (req.idempotencyClaim && raisedAfterChanges(err)) req.idempotencyAfterChanges = true;
    if (err instanceof AppError) {
      const details = err.details as { param?: string } | undefined;
      // the app's sentence speaks to the signed-in sender; here the sender is the key's creator,
      // whom the developer holding the key may not be
      const message = err.message === UNVERIFIED_SEND_MESSAGE ? V1_UNVERIFIED_SEND_MESSAGE : err.message;
      return reply.status(err.status).send(errorBody(err.status, message, details?.param));
    }
    if (err instanceof ZodError)
      return reply.status(400).send(errorBody(400, describeZodError(err), issueParam(err.issues[0])));
    if (err.code === "FST_ERR_CTP_INVALID_JSON_BODY" || err instanceof SyntaxError)
      return reply.status(400).send(errorBody(400, "The request body is not valid JSON"));
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)
      return reply.status(err.statusCode).send(errorBody(err.statusCode, err.message));
    req.log.error({ err }, "unhandled v1 error");
    return reply.status(500).send(errorBody(500, `Something went wrong on our side. Request id: ${req.id}`));
  });
  app.setNotFoundHandler((req, reply) =>
    reply.status(404).send(errorBody(404, `No such route: ${req.method} ${req.url.split("?")[0]}`)),
  );

  app.addHook("onRequest", async (req, reply) => {
    reply.header("Request-Id", req.id);
    if ((req.routeOptions.config as { public?: boolean } | undefined)?.public) return;
    const header = req.headers.authorization ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m)
      throw new AppError(
        "UNAUTHORIZED",
        "Send your API key as 'Authorization: Bearer pw_live_...'. Create one in Settings > API keys.",
      );
    const principal = await authenticateApiKey(ctx, m[1]!);
    const limit = ctx.env.API_RATE_LIMIT_PER_MINUTE;
    try {
      rateHeaders(reply, limit, await ctx.limiters.apiKey.consume(principal.key.id));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      rateHeaders(reply, limit, e);
      reply.header("Retry-After", String(Math.max(1, Math.ceil(e.msBeforeNext / 1000))));
      throw new AppError(
        "TOO_MANY_REQUESTS",
        `Rate limit of ${limit} requests per minute for this API key exceeded.`,
      );
    }
    req.apiPrincipal = principal;
  });

  // Idempotency-Key on POST (after body parsing): replay the stored response or 409; otherwise the
  // request claims the key, and onSend stores its answer or, for a refusal that changed nothing (4xx)
  // or a 5xx, releases the key for a retry (api.service keepsIdempotentAnswer)
  app.addHook("preHandler", async (req, reply) => {
    const key = req.headers["idempotency-key"];
    if (req.method !== "POST" || !req.apiPrincipal || typeof key !== "string" || !key) return;
    const r = await beginIdempotent(
      ctx,
      req.apiPrincipal.key.id,
      key,
      requestFingerprint(req.method, req.url, req.body),
    );
    if ("stored" in r) {
      reply.header("Idempotent-Replayed", "true");
      return reply.status(r.stored.statusCode).send(r.stored.body);
    }
    req.idempotencyClaim = r.claim;
  });
  app.addHook("onSend", async (req, reply, payload) => {
    const claim = req.idempotencyClaim;
    if (!claim) return payload;
    let body: unknown = null;
    try {
      body = typeof payload === "string" || Buffer.isBuffer(payload) ? JSON.parse(payload.toString()) : null;
    } catch {
      body = null;
    }
    req.idempotencyClaim = undefined;
    await finishIdempotent(ctx, claim, reply.statusCode, body, {
      afterChanges: req.idempotencyAfterChanges === true,
    });
    return payload;
  });
  // a safety net: once a response went out, the claim is renewed no more (onSend has normally
  // finished it). Not on a client's abort: the handler still runs, and its claim with it
  app.addHook("onResponse", async (req) => {
    req.idempotencyClaim?.stop();
  });

  for (const r of V1_ROUTES) {
    // query strings are closed like the bodies: an unknown parameter (`?stage=customer` where the
    // filter is `lifecycle_stage`) is a 400 naming it ("This field is not accepted here: stage",
    // `param: "stage"`), never a filter silently ignored
    const querySchema = r.query ? r.query.strict() : NO_QUERY;
    app.route({
      method: r.method,
      url: r.path.replace(/\{(\w+)\}/g, ":$1"),
      bodyLimit: r.path === "/contacts/bulk" || r.path === "/campaigns" ? 10 * 1024 * 1024 : undefined,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const p = req.apiPrincipal!;
        assertScope(p, r.scope);
        const rawQuery = (req.query ?? {}) as Record<string, unknown>;
        // a parameter the route takes, given more than once (`?limit=10&limit=20`), reaches its
        // schema as a list and read as 'must be one of' a list its values are in
        for (const [name, v] of Object.entries(rawQuery))
          if (Array.isArray(v) && Object.hasOwn(querySchema.shape, name))
            throw new AppError(
              "BAD_REQUEST",
              `The query parameter ${name} is given ${v.length} times: give it once`,
              { param: name },
            );
        const query = parseInput(querySchema, rawQuery);
        if (r.body && req.body === undefined && !r.bodyOptional)
          throw new AppError(
            "BAD_REQUEST",
            "The request body is missing: send a JSON object with Content-Type: application/json",
          );
        // a route that takes no body is closed like the others: a field sent to it (`{"until": ...}`
        // to /pause) was ignored; none, or {} (what many clients send), is no body
        if (!r.body && r.method !== "GET" && req.body !== undefined) {
          const sent = req.body;
          if (sent === null || typeof sent !== "object" || Array.isArray(sent))
            throw new AppError(
              "BAD_REQUEST",
              `${r.method} ${r.path} takes no request body: send none (or an empty JSON object)`,
            );
          const first = Object.keys(sent)[0];
          if (first !== undefined)
            throw new AppError("BAD_REQUEST", `This field is not accepted here: ${first}`, { param: first });
        }
        // a body left out where it may be: no fields (JSON null is still refused as not an object)
        const given = req.body === undefined && r.bodyOptional ? {} : req.body;
        const body = r.body ? parseInput(r.body, given) : undefined;
        const params = req.params as Record<string, string>;
        const out = await r.handler({ ctx, p, params, query, body, req, reply });
        // a download: the handler sent the file
        if (r.binary) return out;
        reply.status(r.status ?? 200);
        // a contact page already written as JSON (crm listContactsPageJson) goes out as it is
        if (hasRawJson(out)) return reply.type("application/json; charset=utf-8").send(jsonWithRaw(out));
        return reply.send(out);
      },
    });
  }
}
