import { useMutation, useQuery } from "@tanstack/react-query";
import { Building2 } from "lucide-react";
import { useId } from "react";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/client/components/ui/select";
import { useTRPC } from "@/client/trpc";

const ROLE_LABEL = { owner: "Owner", admin: "Admin", member: "Member" } as const;

/**
 * The sidebar footer's workspace line: the active workspace and the user's role; a switcher when the
 * user belongs to several. Switching reloads the app on the dashboard so no screen shows the previous
 * workspace's cached data.
 */
export function WorkspaceSwitcher() {
  const trpc = useTRPC();
  const id = useId();
  const me = useQuery(trpc.auth.me.queryOptions());
  const switchTo = useMutation(
    trpc.workspaces.switch.mutationOptions({
      onSuccess: () => window.location.assign("/dashboard"),
    }),
  );
  if (!me.data) return null;
  const { workspace, workspaces } = me.data;
  if (workspaces.length < 2)
    return (
      <p
        className="flex items-center gap-2 truncate px-2 pb-1 text-xs text-sidebar-muted-foreground"
        data-testid="sidebar-workspace"
      >
        <Building2 aria-hidden className="size-3.5 shrink-0" />
        <span className="truncate">{workspace.name}</span>
        <span className="shrink-0">· {ROLE_LABEL[workspace.role]}</span>
      </p>
    );
  return (
    <div className="px-2 pb-1">
      <label htmlFor={id} className="sr-only">
        Workspace
      </label>
      <Select
        value={workspace.id}
        disabled={switchTo.isPending}
        onValueChange={(workspaceId) => {
          if (workspaceId !== workspace.id) switchTo.mutate({ workspaceId });
        }}
      >
        <SelectTrigger id={id} className="h-9 bg-sidebar text-xs" data-testid="workspace-switcher">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          {workspaces.map((w) => (
            <SelectItem key={w.id} value={w.id}>
              {w.name} · {ROLE_LABEL[w.role]}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
      {switchTo.error && (
        <p role="alert" className="mt-1 text-xs text-destructive">
          {switchTo.error.message}
        </p>
      )}
    </div>
  );
}
