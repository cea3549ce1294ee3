import { sql } from "drizzle-orm";
import { boolean, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./auth";

/** Roles of a workspace member (issue 10): owner does everything; admin all but billing, deleting the
 * workspace and changing the owner; member works with contacts, media and campaigns. */
export type WorkspaceRole = "owner" | "admin" | "member";

/**
 * The tenant. Every tenant-owned row carries `workspace_id`; plan and billing state live here (not on
 * users). A user's personal workspace, made at registration, has the same uuid as the user.
 */
export const workspaces = pgTable(
  "workspaces",
  {
    id: uuid().primaryKey().defaultRandom(),
    name: text().notNull(),
    /** URL-safe unique handle, e.g. `sams-plumbing-1a2b3c4d` */
    slug: text().notNull(),
    ownerId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "restrict" }),
    /** free | professional | business | enterprise (spec section 3, 9) */
    plan: text().notNull().default("free"),
    /** trialing | active | past_due | canceled; null is shown as 'Trial' (spec section 9) */
    subscriptionStatus: text(),
    /** premium or pro unlock the premium editor (spec section 6) */
    subscriptionTier: text(),
    currentPeriodEnd: timestamp({ withTimezone: true }),
    cancelAtPeriodEnd: boolean().notNull().default(false),
    stripeCustomerId: text(),
    stripeSubscriptionId: text(),
    /** first successful payment (the 14-day money-back guarantee counts from here) */
    firstPaidAt: timestamp({ withTimezone: true }),
    logoUrl: text(),
    /** `#rrggbb` used on recipient landing pages and emails */
    brandColor: text(),
    /** the name recipients see as the sender ("Sam's Plumbing") */
    senderName: text(),
    /**
     * the business's physical postal address, free text (multi-line allowed, at most 300 characters,
     * NFC), shown in the footer of every campaign email: CAN-SPAM, 15 U.S.C. 7704(a)(5)(A)(iii). Null
     * until set in Settings > Workspace.
     */
    postalAddress: text(),
    /** white-label: hide 'Powered by Pitchwise' (Enterprise only, spec section 9) */
    hideBranding: boolean().notNull().default(false),
    /** ISO 3166-1 alpha-2 country for phone numbers typed without +country (issue 14; lib/phone.ts) */
    phoneCountry: text().notNull().default("US"),
    /**
     * when a deletion of the workspace began (features/account; cleared when it fails): no invitation
     * is accepted into it meanwhile. A mark older than workspaces DELETION_MARK_MS does not count.
     */
    deletionStartedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("workspaces_slug_uq").on(t.slug), index("workspaces_owner_idx").on(t.ownerId)],
);

export const workspaceMembers = pgTable(
  "workspace_members",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text().$type<WorkspaceRole>().notNull(),
    joinedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "workspace_members_pk", columns: [t.workspaceId, t.userId] }),
    index("workspace_members_user_idx").on(t.userId),
  ],
);

/** An invitation to join a workspace: the link carries a random token; only its SHA-256 is stored. */
export const workspaceInvites = pgTable(
  "workspace_invites",
  {
    id: uuid().primaryKey().defaultRandom(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    email: text().notNull(),
    role: text().$type<Exclude<WorkspaceRole, "owner">>().notNull(),
    tokenHash: text().notNull(),
    invitedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    acceptedAt: timestamp({ withTimezone: true }),
    acceptedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    revokedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("workspace_invites_token_uq").on(t.tokenHash),
    index("workspace_invites_workspace_idx").on(t.workspaceId, t.createdAt),
    index("workspace_invites_pending_idx")
      .on(t.workspaceId)
      .where(sql`accepted_at is null and revoked_at is null`),
  ],
);

export type Workspace = typeof workspaces.$inferSelect;
export type WorkspaceMember = typeof workspaceMembers.$inferSelect;
export type WorkspaceInvite = typeof workspaceInvites.$inferSelect;
