import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { cn } from "@/client/lib/utils";
import { useTRPC } from "@/client/trpc";

/** What the notice says to an owner or admin (who can add the address) before the link. */
export const POSTAL_ADDRESS_MISSING =
  "Add your business's postal address in Settings > Workspace: the law requires it in marketing email.";

/**
 * The email builders' notice (Review & Launch) while the workspace has no postal address
 * (`workspaces.current` `postal_address` is null): CAN-SPAM (15 U.S.C. 7704(a)(5)(A)(iii)) requires a
 * physical postal address in every commercial email, and campaign emails carry the workspace's in
 * their footer. The launch is not refused (API clients launch without it too); the notice is a
 * warning banner (role=alert) at the top of the review. Owners and admins get a link to Settings >
 * Workspace; a member, who cannot change it, is told to ask them. Nothing once the address is set.
 */
export function PostalAddressNotice({ className }: { className?: string }) {
  const trpc = useTRPC();
  const current = useQuery(trpc.workspaces.current.queryOptions());
  if (!current.data || current.data.postal_address) return null;
  const canEdit = current.data.role !== "member";
  return (
    <AlertBanner
      variant="warning"
      title="Your emails have no postal address"
      className={cn("border-2", className)}
    >
      <span data-testid="postal-address-notice">
        {canEdit ? (
          <>
            {POSTAL_ADDRESS_MISSING}{" "}
            <Link to="/settings" search={{ tab: "workspace" }} className="font-medium underline">
              Add the postal address
            </Link>
          </>
        ) : (
          "Your business's postal address is missing from Settings > Workspace, and the law requires it in marketing email. Ask the workspace owner or an admin to add it."
        )}
      </span>
    </AlertBanner>
  );
}
