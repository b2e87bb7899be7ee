package dev.ordo.serde;

import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqMark;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemStateEntry;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.StoredItem;
import dev.ordo.schema.TopicStats;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/** The codecs and Kafka serdes of every record Ordo writes: the one place they are defined. */
public final class OrdoSerdes {
  public static final AvroCodec<Item> ITEM = new AvroCodec<>(Item.class);
  public static final AvroCodec<StoredItem> STORED_ITEM = new AvroCodec<>(StoredItem.class);
  public static final AvroCodec<ItemStateEntry> ITEM_STATE_ENTRY = new AvroCodec<>(ItemStateEntry.class);
  public static final AvroCodec<Command> COMMAND = new AvroCodec<>(Command.class);
  public static final AvroCodec<Delivery> DELIVERY = new AvroCodec<>(Delivery.class);
  public static final AvroCodec<DelayedRecord> DELAYED_RECORD = new AvroCodec<>(DelayedRecord.class);
  public static final AvroCodec<DeadLetter> DEAD_LETTER = new AvroCodec<>(DeadLetter.class);
  public static final AvroCodec<TopicStats> TOPIC_STATS = new AvroCodec<>(TopicStats.class);
  public static final AvroCodec<NamespacePolicy> NAMESPACE_POLICY = new AvroCodec<>(NamespacePolicy.class);
  public static final AvroCodec<DlqJob> DLQ_JOB = new AvroCodec<>(DlqJob.class);
  public static final AvroCodec<DlqMark> DLQ_MARK = new AvroCodec<>(DlqMark.class);
  public static final AvroCodec<dev.ordo.schema.DlqCancel> DLQ_CANCEL = new AvroCodec<>(dev.ordo.schema.DlqCancel.class);
  public static final AvroCodec<dev.ordo.schema.PurgeProgress> PURGE_PROGRESS =
      new AvroCodec<>(dev.ordo.schema.PurgeProgress.class);

  private OrdoSerdes() {}

  public static <T extends SpecificRecord> Serde<T> serde(AvroCodec<T> codec) {
    return Serdes.serdeFrom(serializer(codec), deserializer(codec));
  }

  public static <T extends SpecificRecord> Serializer<T> serializer(AvroCodec<T> codec) {
    return (topic, record) -> record == null ? null : codec.encode(record);
  }

  public static <T extends SpecificRecord> Deserializer<T> deserializer(AvroCodec<T> codec) {
    return (topic, bytes) -> bytes == null ? null : codec.decode(bytes);
  }
}
