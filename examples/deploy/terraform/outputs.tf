output "events_table" {
  value = aws_dynamodb_table.events.name
}

output "views_table" {
  value = aws_dynamodb_table.views.name
}

output "on_failure_queue_url" {
  value = aws_sqs_queue.on_failure.url
}

output "reactions_table" {
  value = aws_dynamodb_table.reactions.name
}
