// Not built yet: a placeholder so the routes resolve.
export default function DashboardPage() {
  return <div>DashboardPage</div>;
}
