"""The part of GitHub's GraphQL schema (SDL) Atlas reads about discussions: `Repository.discussions` and what a
discussion holds, with the names, argument lists and nullability of GitHub's "Using the GraphQL API for
Discussions" reference. The issue timeline's part is tests/standins/github_graphql_issues.py's."""

SDL = """
scalar DateTime
scalar URI

type Query {
  repository(owner: String!, name: String!, followRenames: Boolean = true): Repository
}

type Repository {
  nameWithOwner: String!
  issue(number: Int!): Issue
  discussions(after: String, before: String, first: Int, last: Int, categoryId: ID = null, answered: Boolean = null,
              orderBy: DiscussionOrder = {field: UPDATED_AT, direction: DESC}): DiscussionConnection!
}

input DiscussionOrder {
  field: DiscussionOrderField!
  direction: OrderDirection!
}

enum DiscussionOrderField { CREATED_AT UPDATED_AT }
enum OrderDirection { ASC DESC }

type PageInfo {
  endCursor: String
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
}

type DiscussionConnection {
  edges: [DiscussionEdge]
  nodes: [Discussion]
  pageInfo: PageInfo!
  totalCount: Int!
}

type DiscussionEdge {
  cursor: String!
  node: Discussion
}

interface Actor {
  login: String!
  url: URI!
}

type User implements Actor {
  login: String!
  url: URI!
}

type DiscussionCategory {
  createdAt: DateTime!
  description: String
  emoji: String!
  id: ID!
  isAnswerable: Boolean!
  name: String!
  updatedAt: DateTime!
}

type Discussion {
  answer: DiscussionComment
  answerChosenAt: DateTime
  author: Actor
  body: String!
  bodyText: String!
  category: DiscussionCategory!
  comments(after: String, before: String, first: Int, last: Int): DiscussionCommentConnection!
  createdAt: DateTime!
  id: ID!
  isAnswered: Boolean
  locked: Boolean!
  number: Int!
  title: String!
  updatedAt: DateTime!
  url: URI!
}

type DiscussionComment {
  author: Actor
  body: String!
  bodyText: String!
  createdAt: DateTime!
  id: ID!
  isAnswer: Boolean!
  updatedAt: DateTime!
  url: URI!
}

type DiscussionCommentConnection {
  nodes: [DiscussionComment]
  pageInfo: PageInfo!
  totalCount: Int!
}
"""
