// Not built yet: a placeholder so the routes resolve.
export default function UsersPage() {
  return <div>UsersPage</div>;
}
