import { can, type Tenant } from "../workspaces/workspaces.service";

// Who may change a note. Its own module: crm.notes (the edits) and crm.contacts (the contact page's
// per-note flags) both use it, and crm.notes already imports crm.contacts.

/** Who is reading or changing a note: the acting person and their role in the workspace. */
export type NoteActor = Pick<Tenant, "userId" | "role">;

/**
 * Whether `actor` may edit or delete a note written by `authorId` (notes.created_by; null when nobody
 * is recorded: a note added through the public API, written before authors were kept, or by an
 * account since deleted). Everyone in the workspace reads every note; its author edits and deletes
 * their own, and owners and admins anyone's (workspaces PERMISSIONS `editOthersNotes`: the rule of
 * HubSpot's and Pipedrive's shared contact records). A note with nobody recorded is an owner's or
 * admin's to change.
 */
export function canChangeNote(actor: NoteActor, authorId: string | null): boolean {
  return (authorId !== null && authorId === actor.userId) || can(actor.role, "editOthersNotes");
}
