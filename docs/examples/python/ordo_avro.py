#!/usr/bin/python3
"""Ordo from Python with confluent-kafka's own Avro serializers and a schema registry.

Ordo (with ordo.schema.registry.url set) registers its schemas under <topic>-value and reads
Confluent-framed records, so any Avro producer can enqueue, and any Avro consumer can read what Ordo
hands out. This program uses confluent-kafka's Avro serializer and deserializer (the legacy
confluent_kafka.avro API, which runs on Debian's python3-avro; see docs/decisions/0031-confluent-wire-format-and-registry.md) and writes no
Avro code of its own.

  enqueue: writes COUNT items to <cluster>.items, Confluent-framed, with the item schema Ordo
           registered (fetched from the registry by subject), each with a traceparent header.
  consume: asks every partition for COUNT items with a demand on <cluster>.commands, reads the
           answers on its reply partition of <cluster>.deliveries (decoded by confluent-kafka's Avro
           deserializer, writer schema by id from the registry), and acks each item over Ordo's
           HTTP API.

Each prints one JSON line per item. Exit status 0 when every item was enqueued / received and acked.
"""
import argparse
import json
import sys
import time
import uuid

import requests
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.avro import AvroProducer, CachedSchemaRegistryClient
from confluent_kafka.avro.serializer.message_serializer import MessageSerializer


def latest_schema(registry_url, subject):
    """The newest schema under subject: the one Ordo registered at start."""
    client = CachedSchemaRegistryClient({"url": registry_url})
    schema_id, schema, _version = client.get_latest_schema(subject)
    if schema is None:
        sys.exit(f"no schema under {subject} in {registry_url}: is Ordo running with ordo.schema.registry.url?")
    return schema


def producer(args):
    return AvroProducer({"bootstrap.servers": args.bootstrap, "schema.registry.url": args.registry,
                         "enable.idempotence": True})


def enqueue(args):
    items = f"{args.cluster}.items"
    schema = latest_schema(args.registry, f"{items}-value")
    p = producer(args)
    failures = []

    def delivered(err, msg):
        if err is not None:
            failures.append(str(err))

    for i in range(args.count):
        item = {"namespace": args.namespace, "topic": args.topic, "priority": i % 3,
                "payload": f"py-{i}".encode(), "traceId": f"trace-{i}"}
        # Kafka headers (here a W3C traceparent) are kept with the item and delivered with it.
        traceparent = f"00-{i + 1:032x}-{i + 1:016x}-01"
        p.produce(topic=items, value=item, value_schema=schema, headers=[("traceparent", traceparent.encode())],
                  on_delivery=delivered)
        print(json.dumps({"payload": f"py-{i}", "priority": i % 3, "traceId": f"trace-{i}",
                          "traceparent": traceparent}), flush=True)
    p.flush(30)
    if failures:
        sys.exit(f"enqueue failed: {failures}")


def delivered_items(delivery):
    """The items of a Delivery: its body is one DeliveredItem, several (DeliveredItems), or an outcome."""
    body = delivery["body"]
    if "items" in body:
        return body["items"]
    if "payload" in body and "leaseId" in body:
        return [body]
    return []  # an Outcome or Outcomes: answers to commands this program did not send


def consume(args):
    commands = f"{args.cluster}.commands"
    deliveries = f"{args.cluster}.deliveries"
    requester = f"py-{uuid.uuid4().hex[:12]}"
    # Ordo's keys are plain UTF-8 strings, not Avro, so not AvroConsumer (which decodes keys too): a plain
    # consumer, and confluent-kafka's Avro deserializer for the values.
    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": requester, "enable.auto.commit": False,
                         "isolation.level": "read_committed"})
    values = MessageSerializer(CachedSchemaRegistryClient({"url": args.registry}))
    # Read the reply partition from its end as it is now, before asking: the answers come after.
    _low, high = consumer.get_watermark_offsets(TopicPartition(deliveries, args.reply_partition), timeout=10)
    consumer.assign([TopicPartition(deliveries, args.reply_partition, high)])

    # A demand per partition (each partition's queue serves only its own items). No key: AvroProducer
    # would want a key schema, and the demand names its partition.
    command_schema = latest_schema(args.registry, f"{commands}-value")
    p = producer(args)
    partitions = sorted(p.list_topics(commands, timeout=10).topics[commands].partitions)
    for partition in partitions:
        demand = {"requester": {"id": requester, "replyPartition": args.reply_partition},
                  "sentAt": int(time.time() * 1000),
                  "body": {"namespace": args.namespace, "topics": {args.topic: args.count},
                           "validForMs": int(args.timeout * 1000), "replace": True, "answerShort": False,
                           "once": False, "limit": -1, "received": 0},
                  "urgent": True}
        p.produce(topic=commands, partition=partition, value=demand,
                  value_schema=command_schema)
    p.flush(30)

    acked = 0
    deadline = time.time() + args.timeout
    while acked < args.count and time.time() < deadline:
        msg = consumer.poll(1.0)
        if msg is None or msg.error() is not None:
            continue
        # A dict, decoded by confluent-kafka's Avro deserializer (writer schema by id from the registry).
        delivery = values.decode_message(msg.value())
        if delivery["requesterId"] != requester:
            continue  # another requester's answer on this partition
        for item in delivered_items(delivery):
            ack = requests.post(f"{args.http}/v1/items/{item['itemId']}/ack",
                                json={"lease": item["leaseId"]}, timeout=10)
            # The item's headers: a list of {"key", "value"} records (values are bytes, or None).
            headers = {h["key"]: None if h["value"] is None else h["value"].decode()
                       for h in item.get("headers") or []}
            print(json.dumps({"itemId": item["itemId"], "payload": item["payload"].decode(),
                              "priority": item["priority"], "traceId": item["traceId"],
                              "namespace": item["namespace"], "topic": item["topic"],
                              "headers": headers, "ack": ack.status_code}), flush=True)
            if ack.status_code == 200:
                acked += 1
    consumer.close()
    if acked < args.count:
        sys.exit(f"acked {acked} of {args.count} items within {args.timeout} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["enqueue", "consume"])
    parser.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers")
    parser.add_argument("--registry", required=True, help="the schema registry Ordo uses (ordo.schema.registry.url)")
    parser.add_argument("--cluster", default="ordo")
    parser.add_argument("--namespace", default="py")
    parser.add_argument("--topic", default="jobs")
    parser.add_argument("--count", type=int, default=5)
    parser.add_argument("--http", default="http://127.0.0.1:7070", help="consume: Ordo's HTTP API, for the acks")
    parser.add_argument("--reply-partition", type=int, default=0, help="consume: the deliveries partition to read")
    parser.add_argument("--timeout", type=float, default=60.0, help="consume: seconds to wait for the items")
    args = parser.parse_args()
    enqueue(args) if args.command == "enqueue" else consume(args)


if __name__ == "__main__":
    main()
