import { useMutation } from "@tanstack/react-query";
import { useEffect } from "react";
import { Button } from "@/client/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { errorMessage, httpStatusOf } from "@/client/lib/errors";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import { shownWorkspace, useWorkspaceChanged } from "./shown-workspace";

/**
 * Shown when the server refused one of this tab's calls because the account now works in another
 * workspace than the tab shows (switched in another tab, or access to this one ended; see
 * shown-workspace). Nothing of the refused call was done. Two ways on: continue in the active
 * workspace (a full load of the dashboard, so no screen keeps the previous workspace's cached data),
 * or switch the account back to the workspace this tab shows and reload this page (refused with the
 * server's sentence when the person is no longer a member). When the refusal said the person no
 * longer belongs to the workspace the tab shows (`memberOfShown` false: removed, or left in another
 * tab), it says their access ended and offers only to continue. Not dismissable: the tab's screens all
 * belong to a workspace the account no longer works in. When the tab becomes visible again it asks
 * the server once (`auth.me`), so the dialog appears before the person acts.
 */
export function WorkspaceChangedDialog() {
  const trpc = useTRPC();
  const active = useWorkspaceChanged();
  const shown = shownWorkspace();
  const switchBack = useMutation(
    trpc.workspaces.switch.mutationOptions({ onSuccess: () => window.location.reload() }),
  );
  const client = useTRPCClient();
  // coming back to the tab: one auth.me, which the server refuses when the workspace changed meanwhile
  // (the tRPC link reports it); any other failure is left to the screens' own calls
  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === "visible" && shownWorkspace()) client.auth.me.query().catch(() => {});
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [client]);
  if (!active) return null;
  const accessEnded = active.memberOfShown === false;
  return (
    <Dialog open>
      <DialogContent
        hideClose
        onEscapeKeyDown={(e) => e.preventDefault()}
        onPointerDownOutside={(e) => e.preventDefault()}
        onInteractOutside={(e) => e.preventDefault()}
        data-testid="workspace-changed-dialog"
      >
        {accessEnded ? (
          <DialogHeader>
            <DialogTitle>
              {shown ? <>Your access to &lsquo;{shown.name}&rsquo; has ended</> : "Your access has ended"}
            </DialogTitle>
            <DialogDescription>
              You are no longer a member of{" "}
              {shown ? <>&lsquo;{shown.name}&rsquo;</> : "the workspace this tab shows"}, so this tab cannot
              go on showing it. Nothing was changed. Your account now works in &lsquo;{active.name}&rsquo;.
            </DialogDescription>
          </DialogHeader>
        ) : (
          <DialogHeader>
            <DialogTitle>This tab shows another workspace</DialogTitle>
            <DialogDescription>
              {shown ? <>This tab shows &lsquo;{shown.name}&rsquo;, but your</> : <>Your</>} account is now
              working in &lsquo;{active.name}&rsquo;: the workspace was switched in another tab, or your
              access to {shown ? <>&lsquo;{shown.name}&rsquo;</> : "the one this tab shows"} has ended.
              Nothing was changed.
            </DialogDescription>
          </DialogHeader>
        )}
        {switchBack.error && (
          <p role="alert" className="text-sm text-destructive">
            {httpStatusOf(switchBack.error) === 404 && shown
              ? `You no longer have access to \u2018${shown.name}\u2019.`
              : errorMessage(switchBack.error, "Could not switch back")}
          </p>
        )}
        <DialogFooter>
          {shown && !accessEnded && !switchBack.error && (
            <Button
              variant="outline"
              loading={switchBack.isPending}
              onClick={() => switchBack.mutate({ workspaceId: shown.id })}
            >
              Switch back to &lsquo;{shown.name}&rsquo;
            </Button>
          )}
          <Button onClick={() => window.location.assign("/dashboard")}>
            Continue in &lsquo;{active.name}&rsquo;
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
