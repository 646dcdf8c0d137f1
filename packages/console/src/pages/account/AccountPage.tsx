// Not built yet: a placeholder so the routes resolve.
export default function AccountPage() {
  return <div>AccountPage</div>;
}
