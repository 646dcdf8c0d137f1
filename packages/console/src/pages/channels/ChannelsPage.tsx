// Not built yet: a placeholder so the routes resolve.
export default function ChannelsPage() {
  return <div>ChannelsPage</div>;
}
