variable "name" {
  description = "Prefix of every resource's name."
  type        = string
  default     = "orders"
}

variable "streams" {
  description = "The event streams the projector reads (the names in eventFilterPattern)."
  type        = list(string)
  default     = ["Order"]
}

variable "lambda_zip" {
  description = "The projector's bundle (a handler built with lambdaHandler), zipped."
  type        = string
}

variable "maximum_retry_attempts" {
  description = "Retries of a failing batch before its coordinates go to the OnFailure queue (-1: until the records expire)."
  type        = number
  default     = 100
}
